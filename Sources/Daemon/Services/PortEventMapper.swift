import Discovery
import Foundation
import Gateway

/// Turns what discovery sees into what the gateway supervises, and into what `nbgw discovery list`
/// shows: udev ports the ``CandidatePolicy`` says to probe become ``PortEvent/appeared(_:)`` (with a
/// dialect hint and the USB facts as attributes), removals of those ports become
/// ``PortEvent/vanished(path:)``, and ports the config file lists statically are left to their
/// `[[ports]]` entry (never supervised twice), unless the policy ignores them: an ignored port
/// (`ID_NBGW_IGNORE=1`, `[discovery] ignore`) is never opened, `[[ports]]` included.
///
/// Pure: every answer is a function of the event, the policy and the static paths (symlinks are
/// resolved once, at init, and through the injected `canonical`). The daemon records
/// ``entry(for:)`` in its ``DiscoveryLedger``.
public struct PortEventMapper: Sendable {
    /// What to do with each udev port.
    public let policy: CandidatePolicy
    /// The config's static ports, as written.
    public let staticPorts: [String]
    /// Canonical paths (symlinks resolved) of the config's static ports.
    public let staticPaths: Set<String>
    /// Resolves a path's symlinks (`/dev/serial/by-id/…` → `/dev/ttyUSB2`); injected for tests.
    let canonical: @Sendable (String) -> String

    public init(
        policy: CandidatePolicy = .standard,
        staticPorts: [String],
        canonical: @escaping @Sendable (String) -> String = PortEventMapper.resolvingSymlinks
    ) {
        self.policy = policy
        self.canonical = canonical
        self.staticPorts = staticPorts
        self.staticPaths = Set(staticPorts.map(canonical))
    }

    /// The outcome of mapping one udev event.
    public enum Mapping: Sendable, Equatable {
        /// Tell the gateway.
        case event(PortEvent)
        /// Leave the port alone, for the logged reason.
        case skipped(devnode: String, reason: String)
    }

    /// The reason of a port left to its `[[ports]]` entry.
    public static let staticReason = "listed under [[ports]] in the config"

    /// Maps one event (see the type's description).
    public func map(_ event: UdevEvent) -> Mapping {
        switch event {
        case .added(let port):
            return map(port, entry: entry(for: port))
        case .removed(let devnode, _):
            if isStatic(devnode) {
                return .skipped(devnode: devnode, reason: Self.staticReason)
            }
            return .event(.vanished(path: devnode))
        }
    }

    /// Maps an added port whose ``entry(for:)`` is `entry`.
    public func map(_ port: UdevPort, entry: DiscoveryEntry) -> Mapping {
        guard entry.decision == .probe else { return .skipped(devnode: port.devnode, reason: entry.reason) }
        return .event(.appeared(Self.modemPort(port, dialectHint: entry.dialectHint, reason: entry.reason)))
    }

    /// What the daemon decides about a udev port: the policy's decision, or ``DiscoveryEntry/Decision/static``
    /// for a port a `[[ports]]` entry names (unless the policy ignores it).
    public func entry(for port: UdevPort) -> DiscoveryEntry {
        let decision = policy.decide(port)
        guard isStatic(port.devnode) else { return DiscoveryEntry(port: port, decision: decision) }
        if decision.action == .ignored {
            return DiscoveryEntry(
                port: port,
                decision: .ignored,
                reason: decision.reason + "; wins over its [[ports]] entry",
                source: decision.source
            )
        }
        return DiscoveryEntry(
            port: port,
            decision: .static,
            reason: Self.staticReason,
            source: staticSource(for: port.devnode)
        )
    }

    /// The entry of each `[[ports]]` entry, from what udev knows about its node (`udevPorts`, empty
    /// when udev is off or does not know the node: a pty, a UART without udev). An ignored one is
    /// not to be opened.
    public func staticEntries(udevPorts: [UdevPort]) -> [DiscoveryEntry] {
        staticPorts.map { path in
            let resolved = canonical(path)
            if let port = udevPorts.first(where: { $0.devnode == resolved || $0.devnode == path }) {
                return entry(for: port)
            }
            // Without udev facts only the path can be matched: the node and the path as a link.
            let bare = UdevPort(devnode: path, syspath: "", links: resolved == path ? [] : [resolved])
            if policy.selection.ignore.contains(where: { $0.matcher.matches(bare) }) {
                let decision = policy.decide(bare)
                return DiscoveryEntry(
                    devnode: path,
                    decision: .ignored,
                    reason: decision.reason + "; wins over its [[ports]] entry",
                    source: decision.source
                )
            }
            return DiscoveryEntry(
                devnode: path,
                decision: .static,
                reason: Self.staticReason,
                source: staticSource(for: path)
            )
        }
    }

    /// Every tty the daemon sees, as it would decide: the static ports, then the udev ports that are
    /// not static (none when `udev` is false), sorted by devnode. What `nbgw discovery list` computes
    /// when it cannot ask the daemon.
    public func entries(udevPorts: [UdevPort], udev: Bool) -> [DiscoveryEntry] {
        let seen = udev ? udevPorts : []
        let statics = staticEntries(udevPorts: seen)
        let staticNodes = Set(statics.map(\.devnode))
        let discovered = seen.filter { !staticNodes.contains($0.devnode) && !isStatic($0.devnode) }.map(entry(for:))
        return (statics + discovered).sorted { $0.devnode < $1.devnode }
    }

    /// Whether `devnode` is one of the config's static ports (directly or through a symlink).
    public func isStatic(_ devnode: String) -> Bool {
        staticPaths.contains(devnode) || staticPaths.contains(canonical(devnode))
    }

    private func staticSource(for devnode: String) -> DecisionSource {
        let written = staticPorts.first { $0 == devnode || canonical($0) == canonical(devnode) } ?? devnode
        return DecisionSource(kind: .config, rule: "[[ports]] path = \"\(written)\"")
    }

    /// The gateway's view of a udev port.
    public static func modemPort(_ port: UdevPort, dialectHint: String?, reason: String) -> ModemPort {
        var attributes: [String: String] = ["reason": reason]
        if let usb = port.usbID { attributes["usb"] = usb }
        if let interface = port.interfaceNumber { attributes["interface"] = String(interface) }
        if let serial = port.serial { attributes["serial"] = serial }
        if let driver = port.driver { attributes["driver"] = driver }
        if !port.links.isEmpty { attributes["links"] = port.links.sorted().joined(separator: " ") }
        return ModemPort(
            path: port.devnode,
            deviceKey: port.usbDeviceSyspath,
            dialectHint: dialectHint,
            baudRates: [],
            origin: .udev,
            attributes: attributes
        )
    }

    /// The gateway's view of a `[[ports]]` entry.
    public static func modemPort(_ port: DaemonConfiguration.StaticPort) -> ModemPort {
        ModemPort(
            path: port.path,
            deviceKey: nil,
            dialectHint: nil,
            baudRates: port.baud.map { [$0] } ?? [],
            origin: .config,
            attributes: ["reason": staticReason]
        )
    }

    /// `realpath(3)`, or the path itself when it does not resolve (not there yet).
    @Sendable public static func resolvingSymlinks(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
