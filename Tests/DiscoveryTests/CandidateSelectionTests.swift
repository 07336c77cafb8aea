import Discovery
import Testing

/// The operator's choice on generic bridges and other ports: `ID_NBGW_PROBE` / `ID_NBGW_IGNORE` tags,
/// `[discovery] probe` / `ignore` entries of every matcher kind, `generic_bridges`, and the reason and
/// rule behind each decision. Pure: ports built by hand, no udev.
@Suite("Candidate policy: opting bridges in, ignoring ports")
struct CandidateSelectionTests {
    static let file = "/etc/nbgw/nbgwd.toml"

    /// A Sonoff ZBDongle-P as udev describes it with systemd's stock rules.
    static let zigbee = UdevPort(
        devnode: "/dev/ttyUSB0",
        syspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/ttyUSB0/tty/ttyUSB0",
        driver: "cp210x",
        vendorID: "10c4",
        productID: "ea60",
        interfaceNumber: 0,
        serial: "9a7c2e1f4b3d5e11a2b3c4d5e6f70812",
        manufacturer: "ITead",
        product: "Sonoff Zigbee 3.0 USB Dongle Plus",
        usbDeviceSyspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1",
        links: [
            "/dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_9a7c2e1f4b3d5e11a2b3c4d5e6f70812-if00-port0",
            "/dev/serial/by-path/pci-0000:00:14.0-usb-0:1:1.0-port0",
        ]
    )

    static func policy(
        probe: [String] = [],
        ignore: [String] = [],
        mode: GenericBridgeMode = .tagged
    ) throws -> CandidatePolicy {
        func entries(_ texts: [String], firstLine: Int) throws -> [ConfiguredMatcher] {
            try texts.enumerated().map { index, text in
                try ConfiguredMatcher(parsing: text, location: ConfigLocation(file: file, line: firstLine + index))
            }
        }
        return .standard(
            selection: PortSelection(
                genericBridges: mode,
                genericBridgesLocation: mode == .tagged ? nil : ConfigLocation(file: file, line: 30),
                probe: try entries(probe, firstLine: 31),
                ignore: try entries(ignore, firstLine: 41)
            )
        )
    }

    static func tagged(_ port: UdevPort, _ properties: [String: String]) -> UdevPort {
        var copy = port
        copy.properties.merge(properties) { $1 }
        return copy
    }

    @Test("the Zigbee stick is skipped by default, with the reason and the default it rests on")
    func zigbeeSkippedByDefault() {
        let decision = CandidatePolicy.standard.decide(Self.zigbee)
        #expect(
            decision.summary
                == "skip: generic USB-UART bridge CP210x 10c4:ea60 (not probed by default: tag it ID_NBGW_PROBE=1 "
                + "or list it in [discovery] probe)"
        )
        #expect(decision.source.kind == .builtin)
        #expect(decision.source.description == "[discovery] generic_bridges = \"tagged\" (default)")
    }

    @Test("generic_bridges = \"tagged\" written in the file: still skipped, citing the file's line")
    func explicitTagged() {
        let location = ConfigLocation(file: Self.file, line: 29)
        let policy = CandidatePolicy.standard(
            selection: PortSelection(genericBridges: .tagged, genericBridgesLocation: location)
        )
        let decision = policy.decide(Self.zigbee)
        #expect(decision.action == .skip)
        #expect(decision.reason.contains("not probed: [discovery] generic_bridges = \"tagged\" (\(Self.file) line 29)"))
        #expect(decision.source == .config("[discovery] generic_bridges = \"tagged\"", at: location))
    }

    @Test("ID_NBGW_PROBE=1 opts the bridge in, with ID_NBGW_DIALECT as the hint; other values do not")
    func probeTag() {
        let decision = CandidatePolicy.standard.decide(
            Self.tagged(Self.zigbee, ["ID_NBGW_PROBE": "1", "ID_NBGW_DIALECT": "quectel-bc66"])
        )
        #expect(decision.action == .probe && decision.dialectHint == "quectel-bc66")
        #expect(decision.source == .udev("ID_NBGW_PROBE"))
        #expect(decision.summary.hasPrefix("probe: ID_NBGW_PROBE=1 (udev rule): CP210x USB-UART bridge (10c4:ea60"))
        for value in ["0", "", "yes", "true"] {
            #expect(CandidatePolicy.standard.decide(Self.tagged(Self.zigbee, ["ID_NBGW_PROBE": value])).action == .skip)
        }
    }

    struct Listed: CustomTestStringConvertible, Sendable {
        var entry: String
        var testDescription: String { entry }
    }

    static let matching: [Listed] = [
        "10c4:ea60", "10C4:EA60", "by-id:usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_*",
        "by-id:usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_9a7c2e1f4b3d5e11a2b3c4d5e6f70812-if00-port0",
        "by-path:pci-0000:00:14.0-usb-0:1:1.0-port0", "by-path:pci-0000:00:14.0-usb-0:1:*",
        "serial:9a7c2e1f4b3d5e11a2b3c4d5e6f70812", "serial:9a7c*", "/dev/ttyUSB0",
        "/dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_9a7c2e1f4b3d5e11a2b3c4d5e6f70812-if00-port0",
    ].map(Listed.init)

    static let notMatching: [Listed] = [
        "10c4:ea70", "1a86:7523", "by-id:usb-Silicon_Labs_*", "by-path:pci-0000:00:14.0-usb-0:2:1.0-port0",
        "serial:0001", "serial:9a7c", "/dev/ttyUSB1", "/dev/serial/by-id/usb-ITead",
        // A by-path name is not looked for among the by-id links, nor the reverse.
        "by-id:pci-0000:00:14.0-usb-0:1:1.0-port0",
    ].map(Listed.init)

    @Test(
        "a [discovery] probe entry of each matcher kind opts the port in, naming the entry and its line",
        arguments: matching
    )
    func probeEntry(_ listed: Listed) throws {
        let policy = try Self.policy(probe: ["serial:nothing-like-it", listed.entry])
        let decision = policy.decide(Self.zigbee)
        #expect(decision.action == .probe, "\(decision)")
        #expect(
            decision.reason.hasPrefix("[discovery] probe entry \"\(listed.entry)\" (\(Self.file) line 32): CP210x"),
            "\(decision.reason)"
        )
        #expect(
            decision.source
                == .config("[discovery] probe entry \"\(listed.entry)\"", at: .init(file: Self.file, line: 32))
        )
    }

    @Test("a [discovery] probe entry that names another port leaves the bridge skipped", arguments: notMatching)
    func probeEntryElsewhere(_ listed: Listed) throws {
        let decision = try Self.policy(probe: [listed.entry]).decide(Self.zigbee)
        #expect(decision.action == .skip, "\(decision)")
        #expect(decision.reason.contains("not probed by default"))
    }

    @Test("a [discovery] ignore entry of each matcher kind keeps nbgwd off the port", arguments: matching)
    func ignoreEntry(_ listed: Listed) throws {
        let decision = try Self.policy(ignore: [listed.entry]).decide(Self.zigbee)
        #expect(decision.action == .ignored)
        #expect(decision.summary == "ignored: [discovery] ignore entry \"\(listed.entry)\" (\(Self.file) line 41)")
    }

    @Test("ignore beats everything: our AT tag, the module table, ID_NBGW_PROBE, probe entries, probe mode")
    func ignoreWins() throws {
        let everything = try Self.policy(probe: ["10c4:ea60", "2c7c:0700"], ignore: [], mode: .probe)
        var bg95AT = Self.tagged(
            Self.zigbee,
            ["ID_NBGW_AT_PORT": "1", "ID_NBGW_PROBE": "1", "ID_MM_PORT_TYPE_AT_PRIMARY": "1"]
        )
        bg95AT.vendorID = "2c7c"
        bg95AT.productID = "0700"
        bg95AT.interfaceNumber = 2
        #expect(everything.decide(bg95AT).action == .probe)
        #expect(everything.decide(Self.zigbee).action == .probe)

        let vetoed = Self.tagged(bg95AT, ["ID_NBGW_IGNORE": "1"])
        #expect(
            everything.decide(vetoed)
                == .ignored(reason: "ID_NBGW_IGNORE=1 (udev rule)", source: .udev("ID_NBGW_IGNORE"))
        )
        #expect(everything.decide(vetoed).summary == "ignored: ID_NBGW_IGNORE=1 (udev rule)")

        var listed = everything
        listed.selection.ignore = try Self.policy(ignore: ["2c7c:0700", "10c4:ea60"]).selection.ignore
        #expect(listed.decide(bg95AT).action == .ignored)
        #expect(listed.decide(bg95AT).reason == "[discovery] ignore entry \"2c7c:0700\" (\(Self.file) line 41)")
        #expect(listed.decide(Self.tagged(Self.zigbee, ["ID_NBGW_PROBE": "1"])).action == .ignored)
        // The udev tag is looked at first: it names itself as the reason.
        #expect(listed.decide(vetoed).source == .udev("ID_NBGW_IGNORE"))
        // Only "1" ignores.
        #expect(everything.decide(Self.tagged(bg95AT, ["ID_NBGW_IGNORE": "0"])).action == .probe)
    }

    @Test("opting in never overrides a known module's map: its NMEA port stays skipped")
    func knownModulesKeepTheirMap() throws {
        var nmea = Self.zigbee
        nmea.vendorID = "2c7c"
        nmea.productID = "0700"
        nmea.interfaceNumber = 1
        let policy = try Self.policy(probe: ["2c7c:0700"], mode: .probe)
        #expect(policy.decide(nmea).action == .skip)
        #expect(policy.decide(nmea).source == .builtin("module table: Quectel BG95 / BG77"))
    }

    @Test("other ports can be opted in too: an unknown CDC ACM board by USB IDs, an on-board UART by path")
    func otherPortsOptIn() throws {
        let mkr = UdevPort(
            devnode: "/dev/ttyACM0",
            syspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/tty/ttyACM0",
            driver: "cdc_acm",
            vendorID: "2341",
            productID: "8055",
            interfaceNumber: 0
        )
        let uart = UdevPort(devnode: "/dev/ttyS1", syspath: "/sys/devices/platform/serial8250/tty/ttyS1")
        #expect(CandidatePolicy.standard.decide(mkr).action == .skip)
        #expect(CandidatePolicy.standard.decide(uart).action == .skip)
        let policy = try Self.policy(probe: ["2341:8055", "/dev/ttyS1"])
        #expect(
            policy.decide(mkr).isProbe && policy.decide(mkr).reason.hasPrefix("[discovery] probe entry \"2341:8055\"")
        )
        #expect(policy.decide(uart).isProbe && policy.decide(uart).source.line == 32)
        #expect(CandidatePolicy.standard.decide(Self.tagged(mkr, ["ID_NBGW_PROBE": "1"])).isProbe)
    }

    @Test("entries that match no port are reported, by list")
    func unmatchedEntries() throws {
        let selection = try Self.policy(probe: ["10c4:ea60", "serial:gone"], ignore: ["by-id:usb-Prolific*"]).selection
        let unmatched = selection.unmatched(by: [Self.zigbee])
        #expect(unmatched.map(\.list) == ["probe", "ignore"])
        #expect(unmatched.map(\.entry.text) == ["serial:gone", "by-id:usb-Prolific*"])
        #expect(unmatched.map(\.entry.location.line) == [32, 41])
        #expect(selection.unmatched(by: []).count == 3)
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        var entry: String
        var problem: String
        var testDescription: String { entry.debugDescription }
    }

    static let bad: [Bad] = [
        Bad(entry: "", problem: "an empty entry names no port"),
        Bad(entry: " 10c4:ea60", problem: "remove the spaces around it"),
        Bad(entry: "10c4:ea6", problem: "4 hex digits each"),
        Bad(entry: "10c4ea60", problem: "not a port matcher"),
        Bad(entry: "10c4:", problem: "not a port matcher"),
        Bad(entry: "usb:10c4:ea60", problem: "unknown kind \"usb:\""),
        Bad(entry: "by-id:", problem: "by-id: needs a link name"),
        Bad(entry: "by-id:/dev/serial/by-id/usb-X", problem: "write the link's name only"),
        Bad(entry: "by-path:", problem: "by-path: needs a link name"),
        Bad(entry: "serial:", problem: "serial: needs the USB serial number"),
        Bad(entry: "/tmp/ttyUSB0", problem: "under /dev"),
        Bad(entry: "/dev/", problem: "under /dev"),
        Bad(entry: "/dev/../etc/passwd", problem: "without . or .."),
        Bad(entry: "ttyUSB0", problem: "not a port matcher"),
    ]

    @Test("an entry that is no matcher is refused with what is wrong and the forms to use", arguments: bad)
    func refused(_ bad: Bad) {
        do {
            let matcher = try PortMatcher(parsing: bad.entry)
            Issue.record("accepted \(bad.entry.debugDescription) as \(matcher)")
        } catch {
            #expect(error.problem.contains(bad.problem), "\(error)")
            #expect(error.description.contains("write VVVV:PPPP (USB IDs"), "\(error)")
        }
    }

    @Test("entries read back to their kind, USB IDs in lower case")
    func parsed() throws {
        #expect(try PortMatcher(parsing: "10C4:EA60") == .usb(vendorID: "10c4", productID: "ea60"))
        #expect(try PortMatcher(parsing: "10C4:EA60").description == "10c4:ea60")
        #expect(try PortMatcher(parsing: "by-id:usb-X") == .byID("usb-X"))
        #expect(try PortMatcher(parsing: "by-path:pci-0") == .byPath("pci-0"))
        #expect(try PortMatcher(parsing: "serial:A:B") == .serial("A:B"))
        #expect(try PortMatcher(parsing: "/dev/nbgw/by-id/x") == .path("/dev/nbgw/by-id/x"))
    }
}
