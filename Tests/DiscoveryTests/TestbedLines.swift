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
        self.ports = try ports.map { port in
            guard let devnode = port["devnode"] as? String, let syspath = port["syspath"] as? String,
                let interface = port["interface"] as? Int, let role = port["role"] as? String
            else { throw HarnessError("not a port: \(port)") }
            return Port(devnode: devnode, syspath: syspath, interface: interface, role: role)
        }
    }

    /// What the testbed's kind table says the policy should do: probe AT ports and bridges.
    static func shouldProbe(role: String) -> Bool { role == "at" || role == "bridge" }
}

/// A `{"event":"port"|"added","port":{...},"decision":{...}}` line.
struct ReportedPort {
    var port: UdevPort
    var probe: Bool
    var dialectHint: String?
    var reason: String

    init(_ line: [String: Any]) throws {
        guard let object = line["port"], let decision = line["decision"] as? [String: Any],
            let probe = decision["probe"] as? Bool, let reason = decision["reason"] as? String
        else { throw HarnessError("not a port line: \(line)") }
        port = try JSONDecoder().decode(UdevPort.self, from: JSONSerialization.data(withJSONObject: object))
        self.probe = probe
        dialectHint = decision["dialectHint"] as? String
        self.reason = reason
    }
}
