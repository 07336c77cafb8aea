import Discovery
import Foundation

/// Reading the testbed's JSON lines: a module it plugged in, and a port the Discovery library reported.
struct TestbedModule {
    struct Port {
        var devnode: String
        var syspath: String
        var interface: Int
        var role: String
    }

    var name: String
    var kind: String
    var vendorID: String
    var productID: String
    var serial: String
    var usbDevice: String
    var imei: String?
    /// udev properties the testbed put on the module's ttys (`ID_NBGW_PROBE=1`).
    var properties: [String: String]
    var ports: [Port]

    init(_ line: [String: Any]) throws {
        guard let name = line["name"] as? String, let kind = line["kind"] as? String,
            let vendorID = line["vendorID"] as? String, let productID = line["productID"] as? String,
            let serial = line["serial"] as? String, let usbDevice = line["usbDevice"] as? String,
            let ports = line["ports"] as? [[String: Any]]
        else { throw HarnessError("not a module line: \(line)") }
        self.name = name
        self.kind = kind
        self.vendorID = vendorID
        self.productID = productID
        self.serial = serial
        self.usbDevice = usbDevice
        imei = line["imei"] as? String
        properties = line["properties"] as? [String: String] ?? [:]
        self.ports = try ports.map { port in
            guard let devnode = port["devnode"] as? String, let syspath = port["syspath"] as? String,
                let interface = port["interface"] as? Int, let role = port["role"] as? String
            else { throw HarnessError("not a port: \(port)") }
            return Port(devnode: devnode, syspath: syspath, interface: interface, role: role)
        }
    }

    /// What the testbed's kind table says the default policy should do: probe AT ports, and bridges only
    /// when opted in (a `ID_NBGW_PROBE=1` tag, a `[discovery] probe` entry, or `generic_bridges = "probe"`).
    static func shouldProbe(role: String, bridgeOptedIn: Bool = false) -> Bool {
        role == "at" || (role == "bridge" && bridgeOptedIn)
    }

    /// ``shouldProbe(role:bridgeOptedIn:)`` for a port of this module, opted in by its own tag.
    func shouldProbe(_ port: Port) -> Bool {
        Self.shouldProbe(role: port.role, bridgeOptedIn: properties["ID_NBGW_PROBE"] == "1")
    }
}

/// A `{"event":"port"|"added","port":{...},"decision":{...}}` line.
struct ReportedPort {
    var port: UdevPort
    var probe: Bool
    /// `probe`, `skip` or `ignored`.
    var action: String
    var dialectHint: String?
    var reason: String
    /// The decision's source as JSON (`kind`, `rule`, `file`, `line`).
    var source: [String: Any]

    init(_ line: [String: Any]) throws {
        guard let object = line["port"], let decision = line["decision"] as? [String: Any],
            let probe = decision["probe"] as? Bool, let reason = decision["reason"] as? String,
            let action = decision["action"] as? String, let source = decision["source"] as? [String: Any]
        else { throw HarnessError("not a port line: \(line)") }
        port = try JSONDecoder().decode(UdevPort.self, from: JSONSerialization.data(withJSONObject: object))
        self.probe = probe
        self.action = action
        self.source = source
        dialectHint = decision["dialectHint"] as? String
        self.reason = reason
    }
}
