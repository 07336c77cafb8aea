import Daemon
import Discovery
import Foundation
import Testing

/// `[discovery] generic_bridges`, `probe` and `ignore`: read with the line of every entry, refused with the
/// line when wrong, rendered by `--check-config`, and turned into the daemon's candidate policy.
@Suite("daemon configuration: [discovery]")
struct DaemonDiscoveryConfigurationTests {
    static let file = "/etc/nbgw/nbgwd.toml"

    static let good = """
        [store]
        path = "/var/lib/nbgw/nbgw.sqlite"

        [discovery]
        udev = true
        generic_bridges = "tagged"
        probe = [
            "10c4:ea60",                       # the BC66 board
            "by-id:usb-Silicon_Labs_CP2102_*",
            "/dev/ttyAMA1", "serial:BC66-0001",
        ]
        ignore = ["by-id:usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_*", "1a86:7523"]
        """

    func problems(_ text: String) throws -> DaemonConfigurationError {
        do {
            _ = try DaemonConfiguration.parse(toml: text, file: Self.file)
        } catch {
            return error
        }
        Issue.record("expected the configuration to be rejected:\n\(text)")
        throw DaemonConfigurationError(file: nil, problems: [])
    }

    @Test("every key is read, each probe and ignore entry with its own line")
    func goodValues() throws {
        let discovery = try DaemonConfiguration.parse(toml: Self.good, file: Self.file).discovery
        #expect(discovery.udev)
        #expect(discovery.genericBridges == .tagged)
        #expect(
            discovery.probe == ["10c4:ea60", "by-id:usb-Silicon_Labs_CP2102_*", "/dev/ttyAMA1", "serial:BC66-0001"]
        )
        #expect(discovery.ignore == ["by-id:usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_*", "1a86:7523"])
        #expect(
            discovery.locations == .init(file: Self.file, genericBridges: 6, probe: [8, 9, 10, 10], ignore: [12, 12])
        )

        let selection = discovery.portSelection
        #expect(selection.genericBridgesLocation == ConfigLocation(file: Self.file, line: 6))
        #expect(
            selection.probe.map(\.matcher) == [
                .usb(vendorID: "10c4", productID: "ea60"), .byID("usb-Silicon_Labs_CP2102_*"), .path("/dev/ttyAMA1"),
                .serial("BC66-0001"),
            ]
        )
        #expect(selection.probe.map(\.location.line) == [8, 9, 10, 10])

        let bridge = UdevPort(
            devnode: "/dev/ttyUSB0",
            syspath: "/sys/devices/x/ttyUSB0",
            driver: "cp210x",
            vendorID: "10c4",
            productID: "ea60",
            interfaceNumber: 0
        )
        let decision = discovery.candidatePolicy.decide(bridge)
        #expect(
            decision.summary.hasPrefix("probe: [discovery] probe entry \"10c4:ea60\" (/etc/nbgw/nbgwd.toml line 8)")
        )
        var ch340 = bridge
        ch340.vendorID = "1a86"
        ch340.productID = "7523"
        #expect(
            discovery.candidatePolicy.decide(ch340).summary
                == "ignored: [discovery] ignore entry \"1a86:7523\" (/etc/nbgw/nbgwd.toml line 12)"
        )
    }

    @Test("the defaults: tagged, nothing listed; the built-in default is named as such")
    func defaults() throws {
        let discovery = try DaemonConfiguration.parse(toml: "[discovery]\nudev = true\n", file: Self.file).discovery
        #expect(discovery == DaemonConfiguration.Discovery())
        #expect(discovery.genericBridges == .tagged && discovery.probe.isEmpty && discovery.ignore.isEmpty)
        #expect(discovery.portSelection.genericBridgesLocation == nil)
        #expect(
            discovery.portSelection.genericBridgesSource.description
                == "[discovery] generic_bridges = \"tagged\" (default)"
        )
        let probing = try DaemonConfiguration.parse(
            toml: "\n[discovery]\ngeneric_bridges = \"probe\"\n",
            file: Self.file
        )
        #expect(probing.discovery.genericBridges == .probe)
        #expect(
            probing.discovery.portSelection.genericBridgesSource
                == .config("[discovery] generic_bridges = \"probe\"", at: .init(file: Self.file, line: 3))
        )
    }

    @Test("equality compares the settings, not where they were written")
    func equalityIgnoresLocations() throws {
        let here = try DaemonConfiguration.parse(toml: "[discovery]\nprobe = [\"10c4:ea60\"]\n", file: "a.toml")
        let there = try DaemonConfiguration.parse(
            toml: "\n\n[discovery]\n\nprobe = [\n\"10c4:ea60\"]\n",
            file: "b.toml"
        )
        #expect(here == there)
        #expect(here.discovery.locations != there.discovery.locations)
        #expect(
            here != (try DaemonConfiguration.parse(toml: "[discovery]\nignore = [\"10c4:ea60\"]\n", file: "a.toml"))
        )
    }

    @Test("bad values are refused, each with its key, its line and the forms to write")
    func badValues() throws {
        let error = try problems(
            """
            [discovery]
            generic_bridges = "always"
            probe = [
                "10c4:ea60",
                "10c4:ea6",
                "usb:1a86:7523",
            ]
            ignore = ["/tmp/ttyUSB0"]
            probes = ["10c4:ea60"]
            """
        )
        #expect(
            error.problems.map(\.key)
                == [
                    "discovery.probes", "discovery.generic_bridges", "discovery.probe[1]", "discovery.probe[2]",
                    "discovery.ignore[0]",
                ]
        )
        #expect(error.problems.map(\.line) == [9, 2, 5, 6, 8])
        try #require(error.problems.count == 5)
        #expect(error.problems[0].message.contains("known keys: udev, generic_bridges, probe, ignore"))
        #expect(error.problems[1].message.contains("unknown mode \"always\": use \"tagged\""))
        #expect(
            error.problems[2].message.contains(
                "\"10c4:ea6\" is not a port matcher: USB vendor and product IDs are 4 hex digits"
            )
        )
        #expect(error.problems[2].message.contains("write VVVV:PPPP"))
        #expect(error.problems[3].message.contains("unknown kind \"usb:\""))
        #expect(error.problems[4].message.contains("under /dev"))
        #expect("\(error)".contains("line 5: discovery.probe[1]: "))
    }

    @Test("wrong types: a string for a list, a number in a list, a number for the mode")
    func wrongTypes() throws {
        let error = try problems(
            """
            [discovery]
            generic_bridges = 1
            probe = "10c4:ea60"
            ignore = [
              "10c4:ea60", 7,
            ]
            """
        )
        #expect(error.problems.map(\.key) == ["discovery.generic_bridges", "discovery.probe", "discovery.ignore[1]"])
        #expect(error.problems.map(\.line) == [2, 3, 5])
        try #require(error.problems.count == 3)
        #expect(error.problems[1].message.contains("expected an array of strings"))
        #expect(error.problems[2].message.contains("expected a string, found an integer (7)"))
    }

    @Test("an entry both probed and ignored is a contradiction, named at the probe entry's line")
    func probeAndIgnore() throws {
        let error = try problems("[discovery]\nprobe = [\"10C4:EA60\"]\nignore = [\"serial:x\", \"10c4:ea60\"]\n")
        try #require(error.problems.count == 1)
        #expect(error.problems[0].key == "discovery.probe[0]" && error.problems[0].line == 2)
        #expect(error.problems[0].message.contains("is also an ignore entry (line 3): ignore wins"))
    }

    @Test("an ignore entry that names a [[ports]] path (or --port) is refused when the configuration is loaded")
    func ignoreNamesStaticPort() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try """
        [discovery]
        ignore = [
          "1a86:7523",
          "by-id:usb-ITead_*",
          "/dev/ttyS1",
        ]

        [[ports]]
        path = "/dev/ttyS1"

        [[ports]]
        path = "/dev/serial/by-id/usb-ITead_Sonoff-if00-port0"

        [[ports]]
        path = "/dev/ttyUSB3"
        """.write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try DaemonConfiguration.load(explicitPath: file, environment: [:])
            Issue.record("a [[ports]] entry that is also ignored was accepted")
        } catch {
            #expect(error.problems.map(\.key) == ["discovery.ignore[1]", "discovery.ignore[2]"])
            #expect(error.problems.map(\.line) == [4, 5])
            #expect(error.problems.last?.message.contains("names the [[ports]] entry \"/dev/ttyS1\"") == true)
        }
        // A USB-ID entry cannot be told from a path: no conflict at load (the daemon decides at start).
        try "[discovery]\nignore = [\"1a86:7523\"]\n[[ports]]\npath = \"/dev/ttyUSB3\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        _ = try DaemonConfiguration.load(explicitPath: file, environment: [:])
        // --port counts as a [[ports]] entry.
        try "[discovery]\nignore = [\"/dev/ttyS7\"]\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: DaemonConfigurationError.self) {
            try DaemonConfiguration.load(
                explicitPath: file,
                environment: [:],
                overrides: DaemonOverrides(ports: [.init(path: "/dev/ttyS7")])
            )
        }
    }

    @Test("--check-config renders [discovery] completely, and it parses back to the same settings")
    func rendering() throws {
        let configuration = try DaemonConfiguration.parse(toml: Self.good, file: Self.file)
        let rendered = configuration.renderedTOML()
        #expect(
            rendered.contains(
                """
                [discovery]
                udev = true
                generic_bridges = "tagged"
                probe = ["10c4:ea60", "by-id:usb-Silicon_Labs_CP2102_*", "/dev/ttyAMA1", "serial:BC66-0001"]
                ignore = ["by-id:usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_*", "1a86:7523"]
                """
            ),
            "\(rendered)"
        )
        #expect(try DaemonConfiguration.parse(toml: rendered, file: "rendered.toml") == configuration)
        #expect(DaemonConfiguration().renderedTOML().contains("generic_bridges = \"tagged\"\nprobe = []\nignore = []"))
    }

    @Test("the CLI's reader: --config, else $NBGW_CONFIG, else the default path when it exists, else defaults")
    func readForInspection() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("nbgwd.toml")
        try "[discovery]\nprobe = [\"10c4:ea60\"]\n".write(toFile: file, atomically: true, encoding: .utf8)
        let absent = directory.path("absent.toml")

        let explicit = try DaemonConfiguration.readForInspection(
            explicitPath: file,
            environment: [:],
            defaultPath: absent
        )
        #expect(explicit.file == file && explicit.configuration.discovery.probe == ["10c4:ea60"])
        let fromEnvironment = try DaemonConfiguration.readForInspection(
            explicitPath: nil,
            environment: ["NBGW_CONFIG": file],
            defaultPath: absent
        )
        #expect(fromEnvironment.file == file)
        let fromDefault = try DaemonConfiguration.readForInspection(
            explicitPath: nil,
            environment: [:],
            defaultPath: file
        )
        #expect(fromDefault.file == file)
        let none = try DaemonConfiguration.readForInspection(explicitPath: nil, environment: [:], defaultPath: absent)
        #expect(none.file == nil && none.configuration == DaemonConfiguration())

        do {
            _ = try DaemonConfiguration.readForInspection(
                explicitPath: nil,
                environment: ["NBGW_CONFIG": absent],
                defaultPath: file
            )
            Issue.record("a missing $NBGW_CONFIG file was accepted")
        } catch {
            #expect(error.file == absent && "\(error)".contains("does not exist (named by $NBGW_CONFIG)"))
        }
        // Only the file's own checks: an ingest key file the operator cannot read is not opened.
        try "[ingest]\ntls_certificate = \"/nonexistent/c.pem\"\ntls_key = \"/nonexistent/k.pem\"\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try DaemonConfiguration.readForInspection(explicitPath: file, environment: [:]).file == file)
    }
}
