import Daemon
import Discovery
import Foundation
import Gateway
import Testing

/// The daemon's side of discovery decisions: the configured policy reaches the gateway, every port gets a
/// ledger entry, an ignored port is never supervised (a `[[ports]]` entry included), and the listing the
/// CLI computes is the daemon's own.
@Suite("discovery decisions in the daemon: mapper and entries")
struct PortEventMapperDiscoveryTests {
    static let zigbee = UdevPort(
        devnode: "/dev/ttyUSB0",
        syspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/ttyUSB0/tty/ttyUSB0",
        driver: "cp210x",
        vendorID: "10c4",
        productID: "ea60",
        interfaceNumber: 0,
        serial: "9a7c2e1f",
        manufacturer: "ITead",
        product: "Sonoff Zigbee 3.0 USB Dongle Plus",
        usbDeviceSyspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1",
        links: ["/dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_9a7c2e1f-if00-port0"]
    )

    static func tagged(_ properties: [String: String], devnode: String = "/dev/ttyUSB1") -> UdevPort {
        var port = zigbee
        port.devnode = devnode
        port.properties = properties
        return port
    }

    static func configuration(_ toml: String) throws -> DaemonConfiguration {
        try DaemonConfiguration.parse(toml: toml, file: "/etc/nbgw/nbgwd.toml")
    }

    /// Paths resolve to themselves: no file system involved.
    static let identity: @Sendable (String) -> String = { $0 }

    @Test("by default the stick is skipped and no supervisor starts; a tagged bridge appears with its hint")
    func defaultPolicy() throws {
        let mapper = PortEventMapper(
            policy: try Self.configuration("").discovery.candidatePolicy,
            staticPorts: [],
            canonical: Self.identity
        )
        let entry = mapper.entry(for: Self.zigbee)
        #expect(entry.decision == .skip && entry.reason.contains("not probed by default"))
        #expect(entry.manufacturer == "ITead" && entry.usbID == "10c4:ea60")
        #expect(mapper.map(.added(Self.zigbee)) == .skipped(devnode: "/dev/ttyUSB0", reason: entry.reason))

        let board = Self.tagged(["ID_NBGW_PROBE": "1", "ID_NBGW_DIALECT": "quectel-bc66"])
        guard case .event(.appeared(let port)) = mapper.map(.added(board)) else {
            Issue.record("the tagged bridge was not announced")
            return
        }
        #expect(port.path == "/dev/ttyUSB1" && port.dialectHint == "quectel-bc66")
        #expect(port.attributes["reason"]?.hasPrefix("ID_NBGW_PROBE=1 (udev rule)") == true)
        #expect(mapper.entry(for: board).source == .udev("ID_NBGW_PROBE"))
    }

    @Test("the daemon's policy is the configured one: a probe entry starts a supervisor, naming its line")
    func configuredPolicy() throws {
        let mapper = PortEventMapper(
            policy: try Self.configuration("[discovery]\nprobe = [\"serial:9a7c2e1f\"]\n").discovery.candidatePolicy,
            staticPorts: [],
            canonical: Self.identity
        )
        guard case .event(.appeared(let port)) = mapper.map(.added(Self.zigbee)) else {
            Issue.record("the listed bridge was not announced")
            return
        }
        #expect(
            port.attributes["reason"]?.hasPrefix(
                "[discovery] probe entry \"serial:9a7c2e1f\" (/etc/nbgw/nbgwd.toml line 2)"
            ) == true
        )
    }

    @Test("an ignored port is never supervised, a [[ports]] entry included; a plain static port stays static")
    func ignoredAndStatic() throws {
        let policy = try Self.configuration(
            "[discovery]\ngeneric_bridges = \"probe\"\nignore = [\"/dev/ttyS4\"]\n"
        ).discovery.candidatePolicy
        let mapper = PortEventMapper(
            policy: policy,
            staticPorts: ["/dev/ttyUSB1", "/dev/ttyS4", "/dev/pts/7", "/dev/ttyUSB0"],
            canonical: Self.identity
        )
        let vetoed = Self.tagged(["ID_NBGW_IGNORE": "1"])
        let entry = mapper.entry(for: vetoed)
        #expect(entry.decision == .ignored)
        #expect(entry.reason == "ID_NBGW_IGNORE=1 (udev rule); wins over its [[ports]] entry")
        #expect(mapper.map(.added(vetoed)) == .skipped(devnode: "/dev/ttyUSB1", reason: entry.reason))

        // Start-up: udev knows ttyUSB0 (untagged) and ttyUSB1 (ignored); ttyS4 is ignored by path; the pty is unknown.
        let statics = mapper.staticEntries(udevPorts: [Self.zigbee, vetoed])
        #expect(statics.map(\.devnode) == ["/dev/ttyUSB1", "/dev/ttyS4", "/dev/pts/7", "/dev/ttyUSB0"])
        #expect(statics.map(\.decision) == [.ignored, .ignored, .static, .static])
        #expect(
            statics[1].reason
                == "[discovery] ignore entry \"/dev/ttyS4\" (/etc/nbgw/nbgwd.toml line 3); wins over its [[ports]] entry"
        )
        #expect(statics[2].source.rule == "[[ports]] path = \"/dev/pts/7\"" && statics[2].vendorID == nil)
        #expect(statics[3].manufacturer == "ITead" && statics[3].reason == PortEventMapper.staticReason)
        // Without udev the tag cannot be known: only path entries apply.
        #expect(mapper.staticEntries(udevPorts: []).map(\.decision) == [.static, .ignored, .static, .static])
    }

    @Test("the listing: static ports and udev's ports once each, sorted; with udev off only the static ones")
    func entries() throws {
        let configuration = try Self.configuration("[discovery]\nudev = true\n")
        let mapper = PortEventMapper(
            policy: configuration.discovery.candidatePolicy,
            staticPorts: ["/dev/ttyUSB1", "/dev/pts/3"],
            canonical: Self.identity
        )
        let listed = mapper.entries(udevPorts: [Self.zigbee, Self.tagged([:])], udev: true)
        #expect(listed.map(\.devnode) == ["/dev/pts/3", "/dev/ttyUSB0", "/dev/ttyUSB1"])
        #expect(listed.map(\.decision) == [.static, .skip, .static])
        #expect(mapper.entries(udevPorts: [Self.zigbee], udev: false).map(\.devnode) == ["/dev/pts/3", "/dev/ttyUSB1"])
    }
}
