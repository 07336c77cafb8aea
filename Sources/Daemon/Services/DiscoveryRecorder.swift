import Discovery
import Gateway
import Logging

/// The daemon's discovery path between udev and the gateway: maps each event with the
/// ``PortEventMapper`` (pure), and does the effects around it: records every port and the decision
/// in the ``DiscoveryLedger`` (added, removed, static) and logs ignored ports. ``GatewayService``
/// feeds it; tests drive it with events directly.
struct DiscoveryRecorder: Sendable {
    let mapper: PortEventMapper
    let ledger: DiscoveryLedger
    let logger: Logger

    /// The static ports to supervise, in order: each recorded with its entry, an ignored one logged at
    /// warning and left out. `udevPorts`: what udev knows now (empty when udev is off).
    func admit(staticPorts: [ModemPort], udevPorts: [UdevPort]) -> [ModemPort] {
        zip(staticPorts, mapper.staticEntries(udevPorts: udevPorts)).compactMap { port, entry in
            ledger.record(entry)
            guard entry.decision != .ignored else {
                logger.warning(
                    "static port ignored",
                    metadata: ["modem.tty": "\(port.path)", "reason": "\(entry.reason)"]
                )
                return nil
            }
            return port
        }
    }

    /// One udev event: recorded in the ledger, then mapped for the gateway.
    func handle(_ event: UdevEvent) -> PortEventMapper.Mapping {
        switch event {
        case .added(let port):
            let entry = mapper.entry(for: port)
            ledger.record(entry)
            if entry.decision == .ignored {
                logger.info("port ignored", metadata: ["modem.tty": "\(port.devnode)", "reason": "\(entry.reason)"])
            }
            return mapper.map(port, entry: entry)
        case .removed(let devnode, _):
            ledger.remove(devnode: devnode)
            return mapper.map(event)
        }
    }
}
