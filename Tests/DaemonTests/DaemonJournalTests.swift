import Foundation
import Registry
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real `nbgwd` whose stderr is "journald's stream" (`JOURNAL_STREAM` names its device and
/// inode, as systemd sets it), with a real datagram socket playing journald's native socket
/// (`NBGW_JOURNAL_SOCKET`), on simulated modules, one of which the network denies.
@Suite("nbgwd under journald", .serialized, .timeLimit(.minutes(3)))
struct DaemonJournalTests {
    /// One ready module and one the network denies (the supervisor logs `modem waiting`, REGISTRATION_DENIED, at warning).
    static let modules = ["bg95", "bc66,registration=denied"]

    static func start(
        _ directory: TemporaryDirectory,
        _ simulator: SimulatorProcess,
        journalSocket: String,
        journalStream: Bool = true,
        environment: [String: String] = [:]
    ) throws -> DaemonProcess {
        var environment = environment
        environment["NBGW_JOURNAL_SOCKET"] = journalSocket
        return try DaemonProcess(
            config: DaemonProcess.config(ports: simulator.ports.map(\.path), store: directory.path("store.sqlite")),
            directory: directory,
            environment: environment,
            journalStream: journalStream
        )
    }

    /// Waits until a record satisfies `predicate`.
    static func waitForRecord(
        _ journald: DatagramListener,
        _ daemon: DaemonProcess,
        _ what: String,
        timeout: Duration = .seconds(60),
        _ predicate: (JournalRecord) -> Bool
    ) async throws -> JournalRecord {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            for datagram in journald.datagrams {
                let record = try JournalRecord(datagram: datagram)
                if predicate(record) { return record }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw DaemonProcess.Failure(
            description: "no record \(what); got:\n"
                + journald.datagrams.compactMap { try? JournalRecord(datagram: $0).description }.joined(separator: "\n")
                + "\n--- stderr ---\n\(daemon.log)"
        )
    }

    @Test(
        "records reach the journal socket field by field: a denied module's waiting is PRIORITY=4 with IMEI, PORT, STATE"
    )
    func nativeProtocol() async throws {
        let directory = try TemporaryDirectory()
        let journald = try DatagramListener(path: directory.path("journal.sock"))
        journald.startReading()
        let simulator = try SimulatorProcess(Self.modules, directory: directory)
        try await simulator.waitForPorts()
        let daemon = try Self.start(directory, simulator, journalSocket: journald.socketPath)
        try await daemon.waitForReady()
        let rows = try await daemon.waitForModems("one module ready, the denied one waiting") { rows in
            rows.contains { $0.state == "ready" } && rows.contains { $0.state == "waiting" && $0.imei != nil }
        }
        let denied = try #require(rows.first { $0.port == simulator.ports[1].path })
        let deniedIMEI = try #require(denied.imei)

        let failure = try await Self.waitForRecord(journald, daemon, "of the denied module's waiting") {
            $0["MESSAGE"]?.hasPrefix("modem waiting") == true
        }
        #expect(failure["PRIORITY"] == "4")
        #expect(failure["SYSLOG_IDENTIFIER"] == "nbgwd")
        #expect(failure["IMEI"] == deniedIMEI)
        #expect(failure["PORT"] == simulator.ports[1].path)
        #expect(failure["STATE"] == "waiting")
        #expect(failure["REASON_CODE"] == "REGISTRATION_DENIED")
        #expect(failure["REASON"]?.contains("denied") == true)
        #expect(failure["MESSAGE"]?.contains("imei=\(deniedIMEI)") == true, "MESSAGE keeps the metadata readable")

        let ready = try await Self.waitForRecord(journald, daemon, "of the ready module") {
            $0["MESSAGE"]?.hasPrefix("modem ready") == true
        }
        #expect(ready["PRIORITY"] == "6")
        #expect(ready["PORT"] == simulator.ports[0].path)
        #expect(ready["DEVICE_ID"]?.hasPrefix("nb") == true)
        let starting = try await Self.waitForRecord(journald, daemon, "of the start") {
            $0["MESSAGE"]?.hasPrefix("nbgwd starting") == true
        }
        #expect(starting["PRIORITY"] == "5")
        #expect(starting["STORE_PATH"] == daemon.storePath)

        // Stored, never logged: no record carries a module's IMSI or ICCID.
        let records = journald.datagrams.map { String(decoding: $0, as: UTF8.self) }
        for row in try Registry(path: daemon.storePath).modems.all() {
            for secret in [row.imsi, row.iccid].compactMap({ $0 }) {
                #expect(!records.contains { $0.contains(secret) }, "\(secret) of \(row.port) was logged")
            }
        }
        #expect(!daemon.log.contains("modem ready"), "records went to stderr too:\n\(daemon.log)")

        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)
        let stopped = try await Self.waitForRecord(journald, daemon, "of the stop", timeout: .seconds(5)) {
            $0["MESSAGE"] == "nbgwd stopped"
        }
        #expect(stopped["PRIORITY"] == "5")
        simulator.stop()
    }

    @Test("without journald's socket the records go to stderr with <N> prefixes; elsewhere plain lines")
    func priorityPrefixes() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try SimulatorProcess(Self.modules, directory: directory)
        try await simulator.waitForPorts()
        let daemon = try Self.start(directory, simulator, journalSocket: directory.path("no-journald.sock"))
        try await daemon.waitForReady()
        try await daemon.waitForModems("the denied module waiting") { rows in
            rows.contains { $0.port == simulator.ports[1].path && $0.state == "waiting" }
        }
        let lines = daemon.log.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<5>nbgwd starting ") }, "\(daemon.log)")
        #expect(lines.contains { $0.hasPrefix("<4>modem waiting ") && $0.contains("port=\(simulator.ports[1].path)") })
        #expect(lines.contains { $0.hasPrefix("<6>modem ready ") && $0.contains("port=\(simulator.ports[0].path)") })
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "a line without its priority:\n\(daemon.log)")
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0)

        // JOURNAL_STREAM inherited from a parent whose stderr was journald's: it names another
        // file, so the daemon logs plain lines (swift-log's format, no prefix).
        let plain = try Self.start(
            directory,
            simulator,
            journalSocket: directory.path("no-journald.sock"),
            journalStream: false,
            environment: ["JOURNAL_STREAM": "8:12345"]
        )
        try await plain.waitForReady()
        plain.send(SIGTERM)
        #expect(try await plain.waitForExit(timeout: .seconds(15)) == 0)
        #expect(plain.log.contains(" notice nbgwd: "), "\(plain.log)")
        #expect(!plain.log.contains("<5>"))
        simulator.stop()
    }
}
