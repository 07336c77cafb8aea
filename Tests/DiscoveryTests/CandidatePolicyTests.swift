import Discovery
import Testing

/// The candidate policy on ports built by hand: the decisions `docs/at-dialects.md` §1 implies for each
/// known interface, the bridges, our tags, ModemManager's hints and the fallbacks.
@Suite("Candidate policy")
struct CandidatePolicyTests {
    let policy = CandidatePolicy.standard

    struct Case: CustomTestStringConvertible, Sendable {
        var usb: String
        var interface: Int
        var probe: Bool
        var hint: String?
        var reasonHas: String
        var testDescription: String { "\(usb) if \(interface)" }
    }

    /// From the interface maps in docs/at-dialects.md §1 (and the option driver's BG95 layouts).
    static let moduleCases: [Case] = [
        Case(usb: "2c7c:0296", interface: 0, probe: false, hint: nil, reasonHas: "DIAG"),
        Case(usb: "2c7c:0296", interface: 1, probe: false, hint: nil, reasonHas: "NMEA"),
        Case(
            usb: "2c7c:0296",
            interface: 2,
            probe: true,
            hint: "quectel-bg9x",
            reasonHas: "Quectel BG96 AT port (if 02)"
        ),
        Case(usb: "2c7c:0296", interface: 3, probe: false, hint: nil, reasonHas: "modem"),
        Case(usb: "2c7c:0700", interface: 0, probe: false, hint: nil, reasonHas: "DIAG"),
        Case(usb: "2c7c:0700", interface: 1, probe: false, hint: nil, reasonHas: "NMEA"),
        Case(
            usb: "2c7c:0700",
            interface: 2,
            probe: true,
            hint: "quectel-bg9x",
            reasonHas: "BG95 / BG77 AT port (if 02)"
        ),
        Case(usb: "2c7c:0700", interface: 3, probe: false, hint: nil, reasonHas: "not a serial port in its map"),
        Case(usb: "2c7c:0700", interface: 4, probe: false, hint: nil, reasonHas: "modem"),
        Case(usb: "1e0e:9001", interface: 2, probe: true, hint: "simcom-sim7000", reasonHas: "AT port (if 02)"),
        Case(usb: "1e0e:9001", interface: 4, probe: false, hint: nil, reasonHas: "audio"),
        Case(usb: "1e0e:9205", interface: 0, probe: false, hint: nil, reasonHas: "DIAG"),
        Case(usb: "1e0e:9205", interface: 2, probe: true, hint: "simcom-sim7080", reasonHas: "AT port (if 02)"),
        Case(usb: "1e0e:9205", interface: 3, probe: false, hint: nil, reasonHas: "modem"),
        Case(usb: "1e0e:9206", interface: 2, probe: true, hint: "simcom-sim7080", reasonHas: "AT port (if 02)"),
        Case(usb: "1e0e:9206", interface: 5, probe: false, hint: nil, reasonHas: "modem"),
        Case(usb: "05c6:90b2", interface: 0, probe: true, hint: "ublox-sara-r4", reasonHas: "unverified role"),
        Case(usb: "05c6:90b2", interface: 2, probe: true, hint: "ublox-sara-r4", reasonHas: "unverified role"),
        Case(usb: "05c6:908b", interface: 1, probe: true, hint: nil, reasonHas: "LARA-R6 AT port (if 01)"),
        Case(usb: "05c6:908b", interface: 0, probe: false, hint: nil, reasonHas: "DIAG"),
        Case(usb: "1915:9100", interface: 0, probe: true, hint: "nordic-nrf91", reasonHas: "Thingy:91"),
        Case(usb: "1915:9100", interface: 3, probe: false, hint: nil, reasonHas: "trace"),
        Case(usb: "2c7c:0195", interface: 2, probe: true, hint: nil, reasonHas: "EG91 / EG95 / EC25 AT port (if 02)"),
    ]

    @Test("each interface of a known module gets the decision of its role in the module's map", arguments: moduleCases)
    func knownModuleInterfaces(_ testCase: Case) {
        let ids = testCase.usb.split(separator: ":").map(String.init)
        let decision = policy.decide(Self.port(vendor: ids[0], product: ids[1], interface: testCase.interface))
        #expect(decision.isProbe == testCase.probe, "\(decision)")
        #expect(decision.dialectHint == testCase.hint)
        #expect(decision.reason.contains(testCase.reasonHas), "\(decision.reason)")
    }

    static let bridgeCases = [
        ("10c4", "ea60", "cp210x", "CP210x"), ("1a86", "7523", "ch341", "CH340"),
        ("0403", "6001", "ftdi_sio", "FTDI"),
        ("0403", "6010", "ftdi_sio", "FTDI"), ("0403", "6011", "ftdi_sio", "FTDI"),
        ("0403", "6014", "ftdi_sio", "FTDI"),
        ("0403", "6015", "ftdi_sio", "FTDI"), ("04e2", "1412", "xr_serial", "Exar"),
        ("067b", "2303", "pl2303", "PL2303"),
        ("1366", "1015", "cdc_acm", "J-Link"),
    ]

    @Test("USB-UART bridges are skipped by default, saying how to opt them in", arguments: bridgeCases)
    func bridgesSkippedByDefault(vendor: String, product: String, driver: String, name: String) throws {
        let port = Self.port(vendor: vendor, product: product, interface: 0, driver: driver)
        let bridge = try #require(policy.bridge(for: port))
        let decision = policy.decide(port)
        #expect(
            decision
                == .skip(
                    reason:
                        "generic USB-UART bridge \(bridge.name) \(vendor):\(product) (not probed by default: tag it "
                        + "ID_NBGW_PROBE=1 or list it in [discovery] probe)",
                    source: .builtin("[discovery] generic_bridges = \"tagged\" (default)")
                )
        )
        #expect(bridge.name.contains(name))
    }

    @Test(
        "with generic_bridges = \"probe\" every bridge is probed without a dialect hint, citing the setting's line",
        arguments: bridgeCases
    )
    func bridgesProbedInProbeMode(vendor: String, product: String, driver: String, name: String) {
        let location = ConfigLocation(file: "/etc/nbgw/nbgwd.toml", line: 30)
        let probing = CandidatePolicy.standard(
            selection: PortSelection(genericBridges: .probe, genericBridgesLocation: location)
        )
        let decision = probing.decide(Self.port(vendor: vendor, product: product, interface: 0, driver: driver))
        #expect(decision.action == .probe && decision.dialectHint == nil, "\(decision)")
        #expect(
            decision.reason.contains(name) && decision.reason.contains("\(vendor):\(product)"),
            "\(decision.reason)"
        )
        #expect(decision.source == .config("[discovery] generic_bridges = \"probe\"", at: location))
        #expect(
            decision.reason.hasPrefix("[discovery] generic_bridges = \"probe\" (/etc/nbgw/nbgwd.toml line 30): "),
            "\(decision.reason)"
        )
    }

    @Test("a bridge chip with IDs outside the table is still recognised by its driver")
    func bridgeByDriver() {
        let probing = CandidatePolicy.standard(selection: PortSelection(genericBridges: .probe))
        let dualCP2105 = Self.port(vendor: "10c4", product: "ea99", interface: 1, driver: "cp210x")
        #expect(probing.decide(dualCP2105).isProbe && probing.decide(dualCP2105).reason.contains("CP210x"))
        #expect(policy.decide(dualCP2105).action == .skip && policy.decide(dualCP2105).reason.contains("CP210x"))
        let rebadgedFTDI = Self.port(vendor: "1234", product: "5678", interface: 0, driver: "ftdi_sio")
        #expect(probing.decide(rebadgedFTDI).isProbe && probing.decide(rebadgedFTDI).reason.contains("FTDI"))
        #expect(policy.decide(rebadgedFTDI).action == .skip && policy.decide(rebadgedFTDI).reason.contains("FTDI"))
    }

    @Test("ID_NBGW_AT_PORT=1 makes any port a candidate, with ID_NBGW_DIALECT as its hint")
    func atPortTag() {
        var port = Self.port(vendor: "2341", product: "0043", interface: 0, driver: "cdc_acm")
        #expect(!policy.decide(port).isProbe)
        port.properties = ["ID_NBGW_AT_PORT": "1", "ID_NBGW_DIALECT": "quectel-bc66"]
        #expect(policy.decide(port).isProbe && policy.decide(port).dialectHint == "quectel-bc66")
        #expect(policy.decide(port).reason.hasPrefix("tagged ID_NBGW_AT_PORT=1"))
        #expect(policy.decide(port).source == .udev("ID_NBGW_AT_PORT"))
        var ttyS = UdevPort(
            devnode: "/dev/ttyS1",
            syspath: "/sys/devices/platform/serial8250/tty/ttyS1",
            driver: "serial8250"
        )
        ttyS.properties = ["ID_NBGW_AT_PORT": "1"]
        #expect(policy.decide(ttyS).isProbe)
    }

    @Test("ID_NBGW_PORT_TYPE of a non-AT role skips the port even on a bridge; gnss means nmea")
    func portTypeTag() {
        for value in ["diag", "nmea", "gnss", "trace", "audio", "modem"] {
            var port = Self.port(vendor: "10c4", product: "ea60", interface: 0, driver: "cp210x")
            port.properties = ["ID_NBGW_PORT_TYPE": value]
            #expect(policy.decide(port).action == .skip, "\(value)")
            #expect(policy.decide(port).reason.contains("ID_NBGW_PORT_TYPE=\(value)"))
        }
        #expect(PortRole(udevValue: "gnss") == .nmea)
        #expect(PortRole(udevValue: "QCDM") == .diag)
        #expect(PortRole(udevValue: "bogus") == nil)
    }

    @Test("ModemManager's hints decide for modules outside the table; the table wins over them")
    func modemManagerTags() {
        var unknown = Self.port(vendor: "2c7c", product: "0801", interface: 0)
        unknown.properties = ["ID_MM_PORT_TYPE_QCDM": "1"]
        #expect(!policy.decide(unknown).isProbe)
        #expect(policy.decide(unknown).reason.contains("ID_MM_PORT_TYPE_QCDM=1"))
        unknown.properties = ["ID_MM_PORT_TYPE_AT_PRIMARY": "1"]
        #expect(policy.decide(unknown).isProbe)
        unknown.properties = ["ID_MM_PORT_IGNORE": "1"]
        #expect(!policy.decide(unknown).isProbe)

        var bg95AT = Self.port(vendor: "2c7c", product: "0700", interface: 2)
        bg95AT.properties = ["ID_MM_PORT_TYPE_QCDM": "1"]
        #expect(policy.decide(bg95AT).isProbe)
    }

    @Test("a module on a cellular serial driver but outside the table is probed")
    func unknownCellularModule() {
        let decision = policy.decide(Self.port(vendor: "2c7c", product: "0801", interface: 3))
        #expect(decision.isProbe)
        #expect(decision.reason.contains("option driver"))
        let qcserial = policy.decide(Self.port(vendor: "1199", product: "9071", interface: 3, driver: "qcserial"))
        #expect(qcserial.isProbe)
    }

    @Test("ports without a USB parent, and unknown USB serial devices, are left to the config")
    func fallbacks() {
        let ttyS0 = UdevPort(
            devnode: "/dev/ttyS0",
            syspath: "/sys/devices/platform/serial8250/tty/ttyS0",
            driver: "serial8250"
        )
        let onBoard = policy.decide(ttyS0)
        #expect(!onBoard.isProbe && onBoard.reason.contains("not USB") && onBoard.reason.contains("[[ports]]"))
        let console = policy.decide(UdevPort(devnode: "/dev/tty1", syspath: "/sys/devices/virtual/tty/tty1"))
        #expect(!console.isProbe)
        let arduino = policy.decide(Self.port(vendor: "2341", product: "0043", interface: 0, driver: "cdc_acm"))
        #expect(
            !arduino.isProbe && arduino.reason.contains("2341:0043") && arduino.reason.contains("ID_NBGW_PROBE=1")
                && arduino.reason.contains("[discovery] probe")
        )
    }

    @Test("a known module's tty without an interface number, or on an unlisted interface, is skipped")
    func malformedKnownModule() {
        var port = Self.port(vendor: "2c7c", product: "0700", interface: 2)
        port.interfaceNumber = nil
        #expect(!policy.decide(port).isProbe)
        #expect(!policy.decide(Self.port(vendor: "2c7c", product: "0700", interface: 5)).isProbe)
        var block = Self.port(vendor: "2c7c", product: "0700", interface: 2)
        block.subsystem = "block"
        #expect(!policy.decide(block).isProbe)
    }

    @Test("every module row has lower-case hex IDs, a distinct VID:PID and at most one primary AT interface")
    func catalogueShape() {
        var seen: Set<String> = []
        for module in KnownModule.catalogue {
            for product in module.productIDs {
                let id = "\(module.vendorID):\(product)"
                #expect(id.count == 9 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase || $0 == ":" }, "\(id)")
                #expect(seen.insert(id).inserted, "\(id) appears twice")
            }
            #expect(module.interfaces.values.filter { $0 == .at }.count <= 1, "\(module.name)")
            #expect(
                module.interfaces.values.contains(.at) || module.otherInterfaces?.isProbed == true,
                "\(module.name)"
            )
        }
    }

    static func port(vendor: String, product: String, interface: Int, driver: String = "option") -> UdevPort {
        UdevPort(
            devnode: "/dev/ttyUSB\(interface)",
            syspath:
                "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.\(interface)/ttyUSB\(interface)"
                + "/tty/ttyUSB\(interface)",
            driver: driver,
            vendorID: vendor,
            productID: product,
            interfaceNumber: interface,
            usbDeviceSyspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1"
        )
    }
}
