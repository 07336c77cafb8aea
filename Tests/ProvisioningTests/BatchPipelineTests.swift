import Cloud
import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import Provisioning
import Testing

@testable import Registry

/// The pipelined batch (a chunk decided on a snapshot while the one before is written) is the fast
/// path of the serial one (decided and written under the write lock): both must give every line
/// the same report row and leave the same rows in the store.
@Suite("A pipelined CSV batch agrees with a serial one")
struct BatchPipelineTests {
    /// 60 registered devices; alice (owner, home lab), bob (owner, home bobs), gus a guest;
    /// devices 50–59 already bound to bob.
    static func store(
        _ directory: URL,
        clock: any WallClock = SystemWallClock()
    ) async throws -> (Registry, [String], [String]) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let registry = try Registry(path: directory.appendingPathComponent("s.sqlite").path, clock: clock)
        try registry.directory.addAccount(name: "alice", role: .owner)
        try registry.directory.addAccount(name: "bob", role: .owner)
        try registry.directory.addAccount(name: "gus", role: .guest)
        try registry.directory.addHome(name: "lab", owner: "alice")
        try registry.directory.addHome(name: "bobs", owner: "bob")
        let registrar = DeviceRegistrar(cloud: EmbeddedCloud(), registry: registry)
        var labels: [String] = []
        var ids: [String] = []
        for serial in 0..<60 {
            let payload = String(format: "35693803%06d", serial)
            let registration = try await registrar.register(imei: payload + String(Luhn.checkDigit(for: payload)))
            labels.append(registration.labelPayload)
            ids.append(registration.device.deviceID)
            if serial >= 50 {
                _ = try registry.bindings.bind(
                    BindCommand(
                        deviceID: try DeviceID(registration.device.deviceID),
                        account: "bob",
                        home: "bobs",
                        source: .cli
                    )
                )
            }
        }
        return (registry, labels, ids)
    }

    /// 150 lines: devices drawn with repeats (so a device comes back in the next chunk, the one being
    /// written, and in later ones), for alice, bob, the guest and a home alice does not own, among
    /// broken lines, unknown labels and payloads that are not NB binds.
    static func csv(_ labels: [String]) -> String {
        var text = "qr,account,home,ref\n"
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for line in 0..<150 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let pick = Int(state >> 33)
            let qr: String
            switch pick % 23 {
            case 0: qr = "hello"
            case 1: qr = "\"broken"
            case 2: qr = labels[0].replacingOccurrences(of: labels[0].suffix(4), with: "ZZZZ")
            default: qr = labels[(pick / 23) % labels.count]
            }
            let (account, home) = [
                ("alice", "lab"), ("alice", "lab"), ("bob", "bobs"), ("gus", "lab"), ("alice", "bobs"),
            ][
                (pick / 7) % 5
            ]
            text += "\(qr),\(account),\(home),r\(line)\n"
        }
        return text
    }

    /// What a batch left: the report, the binding table and the job's device rows.
    static func result(_ registry: Registry, report: String) throws -> (String, [[Int64]], [[Int64]]) {
        let text = try String(contentsOfFile: report, encoding: .utf8)
        return try registry.pool.read { db in
            let bindings = try Row.fetchAll(
                db,
                sql: "SELECT device_row, account_id, home_id, source = 'csv' FROM binding ORDER BY device_row"
            ).map { [$0[0], $0[1], $0[2], $0[3]] as [Int64] }
            let met = try Row.fetchAll(
                db,
                sql: """
                    SELECT device_row, line, bound_at IS NOT NULL, ifnull(account_id, 0), ifnull(home_id, 0)
                    FROM batch_job_device ORDER BY device_row
                    """
            ).map { [$0[0], $0[1], $0[2], $0[3], $0[4]] as [Int64] }
            return (text, bindings, met)
        }
    }

    @Test(
        "Every line gets the same report row and the store the same rows, for chunks of 1, 2, 3 and 7",
        arguments: [1, 2, 3, 7]
    )
    func sameAsSerial(chunkSize: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-pipe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (serialStore, labels, _) = try await BatchPipelineTests.store(directory)
        let copyPath = directory.appendingPathComponent("copy.sqlite").path
        try serialStore.pool.backup(to: try DatabaseQueue(path: copyPath))
        let pipelinedStore = try Registry(path: copyPath)
        let input = directory.appendingPathComponent("in.csv").path
        try BatchPipelineTests.csv(labels).write(toFile: input, atomically: true, encoding: .utf8)
        var summaries: [BatchSummary] = []
        var results: [(String, [[Int64]], [[Int64]])] = []
        for (registry, pipelined) in [(serialStore, false), (pipelinedStore, true)] {
            let report = directory.appendingPathComponent("report-\(pipelined).csv").path
            let summary = try BatchBinder(registry: registry, cloud: EmbeddedCloud()).run(
                BatchRequest(inputPath: input, reportPath: report, chunkSize: chunkSize, pipelined: pipelined)
            )
            summaries.append(summary)
            results.append(try BatchPipelineTests.result(registry, report: report))
        }
        #expect(summaries[0].rows == 150)
        #expect(summaries[0].bound > 20 && summaries[0].failuresByCode["DUPLICATE_IN_FILE", default: 0] > 20)
        #expect(summaries[0].failuresByCode["DEVICE_ALREADY_BOUND", default: 0] > 0)
        #expect(summaries[0].unchanged > 0)
        for key in [\BatchSummary.rows, \.bound, \.unchanged, \.failed] {
            #expect(summaries[0][keyPath: key] == summaries[1][keyPath: key])
        }
        #expect(summaries[0].failuresByCode == summaries[1].failuresByCode)
        #expect(results[0].0 == results[1].0)
        #expect(results[0].1 == results[1].1)
        #expect(results[0].2 == results[1].2)
        // Nothing else wrote, so no chunk went stale: a device named again in the chunk after the
        // one being written is known from memory, not found by the store refusing it.
        #expect(summaries[1].chunksRedecided == 0)
    }

    /// A wall clock that, the second time a thread other than the batch's asks it the time (the
    /// reader's, deciding the second chunk, its snapshot already taken), lets another writer bind a
    /// device.
    final class MeddlingClock: WallClock, @unchecked Sendable {
        private let lock = NSLock()
        private var readerCalls = 0
        /// The thread that runs the batch (and its writes); every other asking thread is the reader's.
        var batchThread: pthread_t?
        var meddle: (@Sendable () -> Void)?

        func now() -> Date {
            if let batchThread, pthread_equal(pthread_self(), batchThread) == 0 {
                lock.lock()
                readerCalls += 1
                let action = readerCalls == 2 ? meddle : nil
                lock.unlock()
                action?()
            }
            return Date()
        }
    }

    @Test("A chunk another writer made stale is decided again under the write lock, and nothing is lost")
    func staleChunkIsDecidedAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-pipe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = MeddlingClock()
        let (registry, labels, ids) = try await BatchPipelineTests.store(directory, clock: clock)
        // Lines 2–3 are the first chunk, 4–5 the second: device 3 (line 5) is bound over HTTP by
        // another connection after the second chunk's snapshot was taken.
        let input = directory.appendingPathComponent("in.csv").path
        try ("qr,account,home\n" + (0..<8).map { "\(labels[$0]),alice,lab\n" }.joined())
            .write(toFile: input, atomically: true, encoding: .utf8)
        let other = try Registry(path: registry.path)
        clock.meddle = {
            _ = try? other.bindings.bind(
                BindCommand(deviceID: try! DeviceID(ids[3]), account: "bob", home: "bobs", source: .http)
            )
        }
        clock.batchThread = pthread_self()
        let summary = try BatchBinder(registry: registry, cloud: EmbeddedCloud()).run(
            BatchRequest(inputPath: input, chunkSize: 2)
        )
        #expect(summary.chunksRedecided == 1)
        #expect(summary.rows == 8 && summary.bound == 7 && summary.failed == 1)
        #expect(summary.failuresByCode == ["DEVICE_ALREADY_BOUND": 1])
        let binding = try #require(try registry.bindings.find(deviceID: ids[3]))
        #expect(binding.account == "bob" && binding.source == .http)
        let report = try String(contentsOfFile: input + ".report.csv", encoding: .utf8).split(separator: "\n")
        #expect(report.count == 9)
        #expect(report.dropFirst().map { $0.split(separator: ",")[0] } == (2...9).map { Substring("\($0)") })
        #expect(report[4].contains("failed,DEVICE_ALREADY_BOUND"))
    }

    @Test("A stop cuts the report back to the last commit, though the next chunk was already decided and reported")
    func stopCutsTheReportBack() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-pipe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (registry, labels, _) = try await BatchPipelineTests.store(directory)
        let input = directory.appendingPathComponent("in.csv").path
        let report = input + ".report.csv"
        try ("qr,account,home\n" + (0..<8).map { "\(labels[$0]),alice,lab\n" }.joined())
            .write(toFile: input, atomically: true, encoding: .utf8)
        func reportLines() -> Int {
            ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        var committedChunks = 0
        let summary = try BatchBinder(registry: registry, cloud: EmbeddedCloud()).run(
            BatchRequest(inputPath: input, chunkSize: 2),
            progress: { _ in committedChunks += 1 },
            shouldStop: {
                guard committedChunks == 1 else { return false }
                // Stop only once the decider has reported the second chunk (header + 2 + 2 rows).
                let deadline = Date().addingTimeInterval(10)
                while reportLines() < 5 && Date() < deadline { usleep(1000) }
                return true
            }
        )
        #expect(summary.stopped && summary.rows == 2 && summary.stoppedAtLine == 4)
        #expect(reportLines() == 1 + 2)
        let resumed = try BatchBinder(registry: registry, cloud: EmbeddedCloud()).run(
            BatchRequest(inputPath: input, chunkSize: 2)
        )
        #expect(resumed.rows == 8 && resumed.bound == 8)
        #expect(reportLines() == 1 + 8)
    }
}
