import Daemon
import Discovery
import Foundation
import Gateway
import Testing

/// Discovery's events as the gateway receives them: the candidate policy decides, static ports
/// are never supervised twice.
@Suite("udev events mapped to port events")
struct PortEventMapperTests {
    static let usbDevice = "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-3"

    static func bg95(interface: Int, node: String) -> UdevPort {
        UdevPort(
            devnode: node,
            syspath: "\(usbDevice)/1-3:1.\(interface)/\(node.dropFirst(5))/tty/\(node.dropFirst(5))",
            driver: "option",
            vendorID: "2c7c",
            productID: "0700",
            interfaceNumber: interface,
            serial: "8d3a0f1c",
            usbDeviceSyspath: usbDevice,
            links: ["/dev/serial/by-id/usb-Quectel_BG95-if0\(interface)-port0"]
        )
    }

    @Test("a known module's AT interface appears with its dialect hint and USB facts")
    func atInterface() throws {
        let mapper = PortEventMapper(staticPorts: [])
        guard case .event(.appeared(let port)) = mapper.map(.added(Self.bg95(interface: 2, node: "/dev/ttyUSB2")))
        else {
            Issue.record("the BG95 AT port was not announced")
            return
        }
        #expect(port.path == "/dev/ttyUSB2")
        #expect(port.origin == .udev)
        #expect(port.dialectHint == "quectel-bg9x")
        #expect(port.deviceKey == Self.usbDevice)
        #expect(port.attributes["usb"] == "2c7c:0700")
        #expect(port.attributes["interface"] == "2")
        #expect(port.attributes["serial"] == "8d3a0f1c")
        #expect(port.attributes["driver"] == "option")
        #expect(port.attributes["reason"]?.contains("BG95") == true)
    }

    @Test("the NMEA interface is skipped with the policy's reason; a removal becomes vanished")
    func nmeaAndRemoval() {
        let mapper = PortEventMapper(staticPorts: [])
        guard case .skipped(let node, let reason) = mapper.map(.added(Self.bg95(interface: 1, node: "/dev/ttyUSB1")))
        else {
            Issue.record("the NMEA port was announced")
            return
        }
        #expect(node == "/dev/ttyUSB1")
        #expect(reason.contains("NMEA"))
        #expect(
            mapper.map(.removed(devnode: "/dev/ttyUSB2", syspath: "\(Self.usbDevice)/1-3:1.2/ttyUSB2"))
                == .event(.vanished(path: "/dev/ttyUSB2"))
        )
    }

    @Test("a port the config lists (even through a symlink) is left to its [[ports]] entry")
    func staticPortsWin() throws {
        let directory = try TemporaryDirectory()
        let target = directory.path("ttyUSB2")
        let link = directory.path("by-id-bg95")
        #expect(FileManager.default.createFile(atPath: target, contents: nil))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let mapper = PortEventMapper(staticPorts: [link])
        let added = mapper.map(.added(Self.bg95(interface: 2, node: target)))
        guard case .skipped(_, let reason) = added else {
            Issue.record("a statically configured port was announced twice: \(added)")
            return
        }
        #expect(reason.contains("[[ports]]"))
        #expect(mapper.map(.removed(devnode: target, syspath: "x")) == .skipped(devnode: target, reason: reason))
    }

    @Test("a [[ports]] entry becomes a config port with its speed first")
    func staticPort() {
        let port = PortEventMapper.modemPort(DaemonConfiguration.StaticPort(path: "/dev/ttyAMA0", baud: 9600))
        #expect(
            port == ModemPort(path: "/dev/ttyAMA0", baudRates: [9600], origin: .config, attributes: port.attributes)
        )
        #expect(PortEventMapper.modemPort(.init(path: "/dev/ttyS1")).baudRates.isEmpty)
    }
}
