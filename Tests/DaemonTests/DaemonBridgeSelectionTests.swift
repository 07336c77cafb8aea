import Foundation
import Registry
import Testing

/// `nbgwd` with udev under umockdev and Zigbee-like sticks (a CP2102N with the Sonoff ZBDongle-P's IDs and
/// strings, played by a silent port that counts the bytes it receives): by default the daemon never writes
/// to them while a BC66 board tagged `ID_NBGW_PROBE=1` is found and registered; with
/// `generic_bridges = "probe"` the stick is written to (so the counter is shown to work), except one tagged
/// `ID_NBGW_IGNORE=1`, which is left alone even when a `[[ports]]` entry names it.
extension DaemonProcessTests {
    /// The bytes the testbed's port `name` has received so far (`stats NAME` on its stdin).
    static func bytesReceived(_ daemon: DaemonProcess, _ name: String) async throws -> Int {
        func count() -> Int { statsLines(daemon.output, name).count }
        let before = count()
        daemon.write("stats \(name)")
        let deadline = ContinuousClock.now + .seconds(20)
        while count() == before {
            guard ContinuousClock.now < deadline else {
                throw DaemonProcess.Failure(description: "no stats line for \(name):\n\(daemon.output)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let ports = statsLines(daemon.output, name).last?["ports"] as? [[String: Any]] ?? []
        return ports.reduce(0) { $0 + ($1["bytesReceived"] as? Int ?? 0) }
    }

    static func statsLines(_ output: String, _ name: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["event"] as? String == "stats", object["name"] as? String == name
            else { return nil }
            return object
        }
    }

    @Test(
        "udev under umockdev: nbgwd never writes to a Zigbee stick by default; the tagged BC66 board is registered",
        .enabled(if: DaemonProcessTests.umockdevWrapper != nil, "umockdev-wrapper is missing: run tools/setup.sh"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: Binaries.udevTestbed.path),
            "nbgw-udev-testbed is not built: swift build --build-tests"
        )
    )
    func zigbeeLeftAlone() async throws {
        let wrapper = try #require(Self.umockdevWrapper)
        let directory = try TemporaryDirectory()
        let store = directory.path("store.sqlite")
        let daemon = try DaemonProcess(
            config: nil,
            directory: directory,
            arguments: ["--db", store, "--metrics-listen", "127.0.0.1:0", "--grace-period", "5"],
            launcher: [
                wrapper, Binaries.udevTestbed.path, "serve", "--add", "zigbee:z1",
                "--add", "bc66board:b1:ID_NBGW_PROBE=1:ID_NBGW_DIALECT=quectel-bc66", "--time-scale", "0.05", "--",
            ]
        )
        try await daemon.waitForReady()
        let rows = try await daemon.waitForModems("the tagged BC66 board ready") { rows in
            rows.contains { $0.state == "ready" }
        }
        // Both were enumerated in one pass, the stick first: by now the daemon has decided about it.
        #expect(try await Self.bytesReceived(daemon, "z1") == 0, "nbgwd wrote to the Zigbee stick")
        #expect(rows.count == 1, "a supervisor ran on the stick: \(rows.map(\.port))")
        let board = try #require(rows.first { $0.state == "ready" })
        #expect(board.attributes["usb"] == "10c4:ea60")
        #expect(board.attributes["reason"]?.hasPrefix("ID_NBGW_PROBE=1 (udev rule)") == true, "\(board.attributes)")
        #expect(board.model?.contains("BC66") == true, "\(board)")

        // Hot-plugged: another stick, then another tagged board; once that board is ready, the stick's
        // add event (sent before) has been handled too.
        daemon.write("add zigbee z2")
        daemon.write("add bc66board b2 ID_NBGW_PROBE=1")
        try await daemon.waitForModems("the second board ready") { rows in
            rows.filter { $0.state == "ready" }.count >= 2
        }
        #expect(try await Self.bytesReceived(daemon, "z2") == 0, "nbgwd wrote to the hot-plugged Zigbee stick")
        #expect(try await Self.bytesReceived(daemon, "z1") == 0)
        #expect(try Registry(path: store).modems.all().count == 2)

        daemon.write("quit")
        let status = try await daemon.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "\(daemon.output)\n\(daemon.log.suffix(3000))")
    }

    @Test(
        "generic_bridges = \"probe\": the stick is written to; one tagged ID_NBGW_IGNORE=1 is not, [[ports]] or not",
        .enabled(if: DaemonProcessTests.umockdevWrapper != nil, "umockdev-wrapper is missing: run tools/setup.sh"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: Binaries.udevTestbed.path),
            "nbgw-udev-testbed is not built: swift build --build-tests"
        )
    )
    func probeModeAndIgnore() async throws {
        let wrapper = try #require(Self.umockdevWrapper)
        let directory = try TemporaryDirectory()
        let store = directory.path("store.sqlite")
        // z1 is /dev/ttyUSB0, z2 /dev/ttyUSB1 (the testbed numbers nodes in plug order).
        let daemon = try DaemonProcess(
            config: """
                [discovery]
                generic_bridges = "probe"

                [[ports]]
                path = "/dev/ttyUSB1"
                """,
            directory: directory,
            arguments: ["--db", store, "--metrics-listen", "127.0.0.1:0", "--grace-period", "5"],
            launcher: [
                wrapper, Binaries.udevTestbed.path, "serve", "--add", "zigbee:z1", "--add",
                "zigbee:z2:ID_NBGW_IGNORE=1",
                "--add", "zigbee:z3:ID_NBGW_IGNORE=1", "--time-scale", "0.05", "--",
            ]
        )
        try await daemon.waitForReady()
        #expect(daemon.output.contains("\"devnode\":\"/dev/ttyUSB1\""))
        let deadline = ContinuousClock.now + .seconds(30)
        var written = 0
        while written == 0, ContinuousClock.now < deadline {
            written = try await Self.bytesReceived(daemon, "z1")
            if written == 0 { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(written >= 3, "in probe mode nbgwd probes the stick: the counter must see AT")
        // The daemon went through every enumerated port to get to z1's probe; give the ignored ones the
        // same time a probe of z1 took again before looking.
        try await Task.sleep(for: .seconds(1))
        #expect(try await Self.bytesReceived(daemon, "z2") == 0, "the ignored [[ports]] stick was written to")
        #expect(try await Self.bytesReceived(daemon, "z3") == 0, "the ignored stick was written to")
        #expect(daemon.log.contains("static port ignored"), "\(daemon.log.suffix(3000))")

        daemon.write("quit")
        let status = try await daemon.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "\(daemon.output)\n\(daemon.log.suffix(3000))")
    }
}
