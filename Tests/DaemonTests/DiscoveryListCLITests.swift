import Foundation
import Testing

/// `nbgw discovery list` as an operator runs it, on fake USB devices under umockdev: the decisions the
/// daemon would take with its config file, from udev's real enumeration, in JSON and as a table.
@Suite("nbgw discovery list under umockdev", .serialized, .timeLimit(.minutes(2)))
struct DiscoveryListCLITests {
    /// Runs `nbgw ARGS` as the testbed's child with `modules` plugged in; the lines the CLI printed.
    static func run(
        modules: [String],
        _ arguments: [String],
        environment: [String: String] = [:]
    ) throws -> (
        status: Int32, lines: [String]
    ) {
        let wrapper = try #require(DaemonProcessTests.umockdevWrapper)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrapper)
        process.arguments =
            [Binaries.udevTestbed.path, "serve"] + modules.flatMap { ["--add", $0] } + ["--", Binaries.nbgw.path]
            + arguments
        process.environment = Binaries.cleanEnvironment(environment)
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // The testbed's own lines are JSON objects with an "event"; the rest is the CLI's.
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { line in
            !line.hasPrefix("{\"event\"") && !line.contains("\"event\":\"")
        }
        return (process.terminationStatus, lines)
    }

    static let enabled =
        DaemonProcessTests.umockdevWrapper != nil
        && FileManager.default.isExecutableFile(atPath: Binaries.udevTestbed.path)

    @Test(
        "--json: the stick skipped with its strings, the tagged board probed, a listed CH340 probed at its line",
        .enabled(if: enabled, "umockdev-wrapper or nbgw-udev-testbed is missing: tools/setup.sh, swift build")
    )
    func json() throws {
        let directory = try TemporaryDirectory()
        let config = directory.path("nbgwd.toml")
        try "[discovery]\nprobe = [\n  \"1a86:7523\",\n  \"serial:gone\",\n]\n".write(
            toFile: config,
            atomically: true,
            encoding: .utf8
        )
        let result = try Self.run(
            modules: ["zigbee:z1", "bc66board:b1:ID_NBGW_PROBE=1", "ch340:c1", "bg95:m1"],
            ["discovery", "list", "--json"],
            environment: ["NBGW_CONFIG": config]
        )
        #expect(result.status == 0, "\(result.lines)")
        let line = try #require(result.lines.last)
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(listing["computedFrom"] as? String == "config")
        #expect(listing["config"] as? String == config)
        let entries = try #require(listing["entries"] as? [[String: Any]])
        func entry(_ devnode: String) -> [String: Any]? { entries.first { $0["devnode"] as? String == devnode } }
        // Plug order: z1 ttyUSB0, b1 ttyUSB1, c1 ttyUSB2, m1 ttyUSB3…6.
        let stick = try #require(entry("/dev/ttyUSB0"))
        #expect(stick["decision"] as? String == "skip")
        #expect(stick["manufacturer"] as? String == "ITead")
        #expect(stick["product"] as? String == "Sonoff Zigbee 3.0 USB Dongle Plus")
        #expect(stick["vendorID"] as? String == "10c4" && stick["productID"] as? String == "ea60")
        #expect(stick["interfaceNumber"] as? Int == 0 && stick["driver"] as? String == "cp210x")
        #expect((stick["links"] as? [String])?.contains { $0.hasPrefix("/dev/serial/by-id/usb-ITead_") } == true)
        #expect((stick["reason"] as? String)?.contains("not probed by default") == true)
        let board = try #require(entry("/dev/ttyUSB1"))
        #expect(board["decision"] as? String == "probe")
        #expect((board["source"] as? [String: Any])?["rule"] as? String == "ID_NBGW_PROBE=1")
        let ch340 = try #require(entry("/dev/ttyUSB2"))
        #expect(ch340["decision"] as? String == "probe")
        let source = try #require(ch340["source"] as? [String: Any])
        #expect(
            source["kind"] as? String == "config" && source["file"] as? String == config && source["line"] as? Int == 3
        )
        #expect(
            entries.filter { ($0["vendorID"] as? String) == "2c7c" && $0["decision"] as? String == "probe" }.count == 1
        )
        let unmatched = try #require(listing["unmatched"] as? [[String: Any]])
        #expect(unmatched.count == 1 && unmatched.first?["entry"] as? String == "serial:gone")
        #expect(unmatched.first?["line"] as? Int == 4)
    }

    @Test(
        "the table says where the decisions come from, and each reason; a bad config is refused with its line",
        .enabled(if: enabled, "umockdev-wrapper or nbgw-udev-testbed is missing: tools/setup.sh, swift build")
    )
    func table() throws {
        let directory = try TemporaryDirectory()
        let config = directory.path("nbgwd.toml")
        try "[discovery]\nignore = [\"by-id:usb-ITead_*\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try Self.run(modules: ["zigbee:z1", "cp210x:b1"], ["discovery", "list", "--config", config])
        #expect(result.status == 0, "\(result.lines)")
        let text = result.lines.joined(separator: "\n")
        #expect(text.hasPrefix("Computed from \(config) and udev now, not asked of a running nbgwd."), "\(text)")
        #expect(text.contains("PORT          DECISION  USB        IF  DRIVER  DEVICE"), "\(text)")
        #expect(text.contains("/dev/ttyUSB0  ignored   10c4:ea60  00  cp210x  ITead Sonoff Zigbee 3.0 USB Dongle Plus"))
        #expect(text.contains("    [discovery] ignore entry \"by-id:usb-ITead_*\" (\(config) line 2)"))
        #expect(
            text.contains(
                "/dev/ttyUSB1  skip      10c4:ea60  00  cp210x  Silicon Labs CP2102 USB to UART Bridge Controller"
            )
        )
        #expect(text.contains("    rule: [discovery] generic_bridges = \"tagged\" (default)"))

        try "[discovery]\nprobe = [\"10c4\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try Self.run(modules: ["zigbee:z1"], ["discovery", "list", "--config", config, "--json"])
        #expect(refused.status == 40, "\(refused.lines)")
        let error = try #require(refused.lines.last)
        #expect(
            error.contains("\"code\":\"INVALID_ARGUMENT\"") && error.contains("line 2: discovery.probe[0]"),
            "\(error)"
        )
    }
}
