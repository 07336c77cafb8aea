import Discovery
import Foundation
import Gateway

/// Turns what discovery sees into what the gateway supervises: udev ports the
/// ``CandidatePolicy`` says to probe become ``PortEvent/appeared(_:)`` (with a dialect hint and the
/// USB facts as attributes), removals of those ports become ``PortEvent/vanished(path:)``, and
/// ports the config file lists statically are left to their `[[ports]]` entry (never supervised twice).
public struct PortEventMapper: Sendable {
    /// What to do with each udev port.
    public let policy: CandidatePolicy
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
        self.staticPaths = Set(staticPorts.map(canonical))
    }

    /// The outcome of mapping one udev event.
    public enum Mapping: Sendable, Equatable {
        /// Tell the gateway.
        case event(PortEvent)
        /// Leave the port alone, for the logged reason.
        case skipped(devnode: String, reason: String)
    }

    /// Maps one event (see the type's description).
    public func map(_ event: UdevEvent) -> Mapping {
        switch event {
        case .added(let port):
            if staticPaths.contains(canonical(port.devnode)) || staticPaths.contains(port.devnode) {
                return .skipped(devnode: port.devnode, reason: "listed under [[ports]] in the config")
            }
            switch policy.decide(port) {
            case .skip(let reason):
                return .skipped(devnode: port.devnode, reason: reason)
            case .probe(let hint, let reason):
                return .event(.appeared(Self.modemPort(port, dialectHint: hint, reason: reason)))
            }
        case .removed(let devnode, _):
            if staticPaths.contains(devnode) || staticPaths.contains(canonical(devnode)) {
                return .skipped(devnode: devnode, reason: "listed under [[ports]] in the config")
            }
            return .event(.vanished(path: devnode))
        }
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
            attributes: ["reason": "listed under [[ports]] in the config"]
        )
    }

    /// `realpath(3)`, or the path itself when it does not resolve (not there yet).
    @Sendable public static func resolvingSymlinks(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
