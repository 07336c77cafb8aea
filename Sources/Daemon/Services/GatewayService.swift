import Discovery
import Gateway
import Logging
import ServiceLifecycle

/// Discovery feeding the gateway, as one service: the config's static ports first (each an
/// ``PortEvent/appeared(_:)``, unless the policy ignores it), then, unless udev discovery is off, the
/// udev ports the ``CandidatePolicy`` picks, and their removals. Every port seen and the decision
/// about it go into `ledger` (`nbgw discovery list`). Graceful shutdown stops discovery and cancels
/// the supervisors (each closes its port; rows are marked absent at the next start).
struct GatewayService: Service, CustomStringConvertible {
    let gateway: Gateway
    let staticPorts: [ModemPort]
    let discovery: UdevDiscovery?
    let mapper: PortEventMapper
    let ledger: DiscoveryLedger
    let readiness: DaemonReadiness
    let logger: Logger

    var description: String { "gateway" }

    private var recorder: DiscoveryRecorder {
        DiscoveryRecorder(mapper: mapper, ledger: ledger, logger: logger)
    }

    func run() async throws {
        let (events, continuation) = AsyncStream.makeStream(of: PortEvent.self)
        for port in recorder.admit(staticPorts: staticPorts, udevPorts: udevFactsForStaticPorts()) {
            logger.info("static port from the config", metadata: ["modem.tty": "\(port.path)"])
            continuation.yield(.appeared(port))
        }
        let source = discovery == nil ? "udev off" : "udev on"
        try await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await gateway.run(events: events)
                }
                if let discovery {
                    group.addTask {
                        await follow(discovery, into: continuation)
                    }
                }
                await readiness.markReady(
                    "gateway",
                    detail: "\(staticPorts.count) static port\(staticPorts.count == 1 ? "" : "s"), \(source)"
                )
                // The gateway's task ends the service (discovery's never ends on its own).
                try await group.next()
                group.cancelAll()
            }
        }
        continuation.finish()
    }

    /// What udev knows about the static ports' nodes, so that `ID_NBGW_IGNORE=1` and the USB-identity
    /// `[discovery] ignore` entries apply to them too: one enumeration, only when there are static
    /// ports and udev is on. Why that is cheap enough for the start: `nbgw discovery list --all` (the
    /// same enumeration and decisions) took 0.03–0.09 s over this container's 68 ttys against 0.02–0.03 s
    /// for `nbgw --version` (debug build, docs/discovery.md).
    private func udevFactsForStaticPorts() -> [UdevPort] {
        guard let discovery, !staticPorts.isEmpty else { return [] }
        do {
            return try discovery.enumerate()
        } catch {
            logger.warning(
                "cannot read udev's facts about the static ports: only path entries of [discovery] ignore apply",
                metadata: ["error": "\(error)"]
            )
            return []
        }
    }

    /// Maps udev events into the gateway's stream until cancelled. When the udev stream ends on
    /// its own (the monitor failed), static and already-found ports stay supervised: only
    /// hot-plug is lost, which the log says.
    private func follow(_ discovery: UdevDiscovery, into continuation: AsyncStream<PortEvent>.Continuation) async {
        for await event in discovery.events() {
            switch recorder.handle(event) {
            case .event(let portEvent):
                continuation.yield(portEvent)
            case .skipped(let devnode, let reason):
                logger.debug("port not probed", metadata: ["modem.tty": "\(devnode)", "reason": "\(reason)"])
            }
        }
        guard !Task.isCancelled else { return }
        logger.error(
            "udev events ended: hot-plugged ports are no longer seen",
            metadata: ["hint": "check systemd-udevd, then restart nbgwd"]
        )
        // Why an hour: any long sleep will do; the task only waits here for cancellation.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
