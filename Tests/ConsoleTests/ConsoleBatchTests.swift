import Cloud
import DeviceIdentity
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Ingest
import Logging
import NBGWCore
import Provisioning
import Registry
import Synchronization
import TestClocks
import TestHTTP
import Testing

@testable import Console

#if canImport(Glibc)
import Glibc
#endif

/// The console's CSV batches over real HTTP on loopback (docs/console.md, "Batches"): uploads
/// streamed to their file and bounded (size, quota, one at a time), what a finished job leaves and
/// the sweep removes, and an interrupted job resumed after a restart. The lifecycle with a real
/// `nbgwd` (SIGTERM, peak RSS) is `ConsoleBatchDaemonTests`.
@Suite("console batches over HTTP")
struct ConsoleBatchTests {
    /// A store with operator ana, owner alice (home lab) and `devices` registered modules, on a
    /// manual wall clock the batches share; the batch directory inside its temporary directory.
    final class Fixture: Sendable {
        let registry: Registry
        let directory: String
        let batchDirectory: String
        let wall = ManualWallClock()
        let cloud = EmbeddedCloud()
        let labels: [String]

        init(devices: Int) async throws {
            let (registry, directory) = try temporaryRegistry(clock: wall)
            self.registry = registry
            self.directory = directory
            batchDirectory = directory + "/batches"
            try registry.console.addOperator(
                name: "ana",
                role: .operator,
                passwordHash: try ConsoleHTTPTests.hasher.hash("right password")
            )
            try registry.directory.addAccount(name: "alice", role: .owner)
            try registry.directory.addHome(name: "lab", owner: "alice")
            var labels: [String] = []
            for serial in 0..<devices {
                let digits = String(format: "35693803%06d", serial)
                let registration = try await DeviceRegistrar(cloud: cloud, registry: registry).register(
                    imei: digits + String(Luhn.checkDigit(for: digits))
                )
                labels.append(registration.labelPayload)
            }
            self.labels = labels
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        func configuration(
            maxUpload: Int = 1 << 20,
            quota: Int64 = 64 << 20,
            retention: Duration = .seconds(7 * 86_400)
        ) -> ConsoleConfiguration {
            ConsoleConfiguration(
                secureCookies: false,
                batchDirectory: batchDirectory,
                maxCSVBytes: maxUpload,
                batchRetention: retention,
                batchQuotaBytes: quota,
                batchClock: wall
            )
        }

        /// A CSV binding the modules `rows` to alice's lab.
        func csv(_ rows: Range<Int>) -> String {
            "qr,ref\n" + rows.map { "\(labels[$0]),r\($0)\n" }.joined()
        }

        /// The names of the files in the batch directory, sorted.
        var files: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: batchDirectory)) ?? []).sorted()
        }

        var uploads: [String] { files.filter { !$0.hasSuffix(".report.csv") } }
        var reports: [String] { files.filter { $0.hasSuffix(".report.csv") } }
    }

    /// What a test gets: the live client, the server's port, the console's parts and ana's session.
    struct Console {
        let client: any TestClientProtocol
        let port: Int
        let parts: ConsoleService.Parts
        let cookie: String
        let csrf: String

        var headers: [String: String] {
            ["Cookie": cookie, "X-CSRF-Token": csrf, "Accept": "application/json", "Content-Type": "text/csv"]
        }

        func upload(_ csv: String, name: String = "tray.csv") async throws -> LoopbackHTTPConnection.Response {
            try await LoopbackHTTPConnection.request(
                port: port,
                "POST",
                "/batch?name=\(name)&account=alice&home=lab",
                headers: headers,
                body: Array(csv.utf8)
            )
        }

        /// The same client signed in afresh: after the wall clock jumped past a session's lifetime.
        func signedInAgain() async throws -> Console {
            let (cookie, csrf) = try await ConsoleHTTPTests().signIn(client, "ana", "right password")
            return Console(client: client, port: port, parts: parts, cookie: cookie, csrf: csrf)
        }

        func progress(_ id: Int) async throws -> [String: Any] {
            try await LoopbackHTTPConnection.request(port: port, "GET", "/batch/\(id).json", headers: headers).json
        }

        /// Polls the job until it is no longer running (a run of a few rows takes milliseconds).
        func waitUntilDone(_ id: Int, timeout: Duration = .seconds(30)) async throws -> [String: Any] {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let value = try await progress(id)
                if value["done"] as? Bool == true { return value }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw TestFailure("batch \(id) still running after \(timeout)")
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func withConsole(
        _ fixture: Fixture,
        _ configuration: ConsoleConfiguration,
        _ body: @escaping @Sendable (Console) async throws -> Void
    ) async throws {
        let logger = Logger(label: "test")
        let ingest = IngestConfiguration(port: 0, walCheckpointInterval: nil)
        let parts = ConsoleService.parts(
            configuration: configuration,
            registry: fixture.registry,
            cloud: fixture.cloud,
            signIn: ConsoleSignIn(registry: fixture.registry, hasher: ConsoleHTTPTests.hasher),
            logger: logger
        )
        let app = try IngestService.buildApplication(
            configuration: ingest,
            responder: ConsoleService.buildResponder(
                ingest: ingest,
                parts: parts,
                registry: fixture.registry,
                cloud: fixture.cloud,
                logger: logger
            ),
            logger: logger
        )
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let (cookie, csrf) = try await ConsoleHTTPTests().signIn(client, "ana", "right password")
            try await body(Console(client: client, port: port, parts: parts, cookie: cookie, csrf: csrf))
        }
    }

    /// Polls until `condition` holds (a file the server writes), failing after `timeout`.
    static func waitFor(_ what: String, timeout: Duration = .seconds(20), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1
    }

    /// `bytes` as one chunk of chunked transfer coding.
    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array((String(bytes.count, radix: 16) + "\r\n").utf8) + bytes + [13, 10]
    }

    /// `count` bytes of CSV rows naming no module (each row a refused label), after a header.
    static func filler(_ count: Int, header: Bool) -> [UInt8] {
        var text = header ? "qr,ref\n" : ""
        var row = 0
        while text.utf8.count < count {
            text += "\(EmbeddedCloud.defaultLabelBase)X\(String(format: "%010d", row)),filler\n"
            row += 1
        }
        return Array(text.utf8.prefix(count))
    }

    // MARK: Uploads

    @Test(
        "an upload streams into its file as it arrives (0600, directory 0700); past the largest size it is refused with 413 and its part deleted"
    )
    func uploadStreamsAndStopsAtTheLimit() async throws {
        let fixture = try await Fixture(devices: 0)
        try await withConsole(fixture, fixture.configuration(maxUpload: 1 << 20)) { console in
            let connection = try await LoopbackHTTPConnection(port: console.port)
            var headers = console.headers
            headers["Transfer-Encoding"] = "chunked"
            try await connection.sendHead("POST", "/batch?name=big.csv&account=alice&home=lab", headers: headers)
            try await connection.send(Self.chunk(Self.filler(600 * 1024, header: true)))
            // The part sent so far is on disk before the body ends: nothing holds the whole file.
            try await Self.waitFor("the upload's first part on disk") {
                fixture.uploads.count == 1
                    && Self.fileSize(fixture.batchDirectory + "/" + fixture.uploads[0]) >= 256 * 1024
            }
            let upload = fixture.batchDirectory + "/" + fixture.uploads[0]
            #expect(Self.mode(upload) == 0o600, "\(upload)")
            #expect(Self.mode(fixture.batchDirectory) == 0o700)
            try await connection.send(Self.chunk(Self.filler(600 * 1024, header: false)) + Array("0\r\n\r\n".utf8))
            let response = try await connection.readResponse()
            #expect(response.status == 413, "\(response.text)")
            #expect(response.json["code"] as? String == "PAYLOAD_TOO_LARGE")
            #expect((response.json["message"] as? String)?.contains("batch_max_upload") == true, "\(response.text)")
            #expect(fixture.files == [], "the refused upload's part must be deleted")

            // Declared too large: refused before a byte is written.
            let declared = try await LoopbackHTTPConnection(port: console.port)
            headers["Transfer-Encoding"] = nil
            headers["Content-Length"] = String(2 << 20)
            try await declared.sendHead("POST", "/batch?name=big.csv", headers: headers)
            try await declared.sendBody(chunked: false, Self.parts(of: Self.filler(2 << 20, header: true)))
            #expect(try await declared.readResponse().status == 413)
            #expect(fixture.files == [])
        }
    }

    /// A generator handing out `bytes` 64 KiB at a time.
    static func parts(of bytes: [UInt8]) -> @Sendable () -> [UInt8]? {
        final class Offset: Sendable { let value = Mutex(0) }
        let offset = Offset()
        return {
            offset.value.withLock { offset in
                guard offset < bytes.count else { return nil }
                let end = min(bytes.count, offset + 65536)
                defer { offset = end }
                return Array(bytes[offset..<end])
            }
        }
    }

    @Test("an upload that would take the batch files past their quota is refused with 413 naming the quota")
    func quotaRefusesAnUpload() async throws {
        let fixture = try await Fixture(devices: 0)
        try FileManager.default.createDirectory(atPath: fixture.batchDirectory, withIntermediateDirectories: true)
        let earlier = fixture.batchDirectory + "/upload-1-1-earlier.csv.csv.report.csv"
        try Data(count: 3_500_000).write(to: URL(fileURLWithPath: earlier))
        try await withConsole(fixture, fixture.configuration(maxUpload: 1 << 20, quota: 4 << 20)) { console in
            // 200 KiB and its report (counted as three times as much) do not fit beside 3.5 MB.
            let refused = try await console.upload(
                String(decoding: Self.filler(200 * 1024, header: true), as: UTF8.self)
            )
            #expect(refused.status == 413, "\(refused.text)")
            #expect((refused.json["message"] as? String)?.contains("batch_quota") == true, "\(refused.text)")
            #expect(fixture.files == ["upload-1-1-earlier.csv.csv.report.csv"])
            // 40 KiB fits.
            let accepted = try await console.upload(
                String(decoding: Self.filler(40 * 1024, header: true), as: UTF8.self)
            )
            #expect(accepted.status == 202, "\(accepted.text)")
            let id = try #require(accepted.json["id"] as? Int)
            _ = try await console.waitUntilDone(id)
        }
    }

    @Test(
        "a batch whose report would take the files past their quota stops at a chunk boundary, interrupted, naming the quota"
    )
    func quotaStopsAGrowingReport() async throws {
        let fixture = try await Fixture(devices: 0)
        let quota: Int64 = 4 << 20
        try await withConsole(fixture, fixture.configuration(maxUpload: 1 << 20, quota: quota)) { console in
            // 300 KiB of 4-byte rows that all fail: counted as 1.2 MB at the upload, but each report
            // row carries its message (about 180 bytes): the whole report would be about 13 MB.
            var csv = "qr\n"
            var row = 0
            while csv.utf8.count < 300 * 1024 {
                let number = row % 100
                csv += number < 10 ? "g0\(number)\n" : "g\(number)\n"
                row += 1
            }
            let accepted = try await console.upload(csv)
            #expect(accepted.status == 202, "\(accepted.text)")
            let id = try #require(accepted.json["id"] as? Int)
            let stopped = try await console.waitUntilDone(id)
            #expect(stopped["status"] as? String == "interrupted", "\(stopped)")
            #expect(stopped["code"] as? String == "PAYLOAD_TOO_LARGE", "\(stopped)")
            #expect((stopped["summary"] as? String)?.contains("batch_quota") == true, "\(stopped)")
            let rows = stopped["rows"] as? Int ?? 0
            #expect(rows > 0 && rows < row, "stopped part way: \(rows) of \(row) rows")
            let used = fixture.files.reduce(0) { $0 + Self.fileSize(fixture.batchDirectory + "/" + $1) }
            // Past the quota by at most the chunk that crossed it (2,500 rows of about 180 bytes).
            #expect(used > 0 && Int64(used) < quota + 600_000, "\(used) bytes on disk")
            #expect(fixture.uploads.count == 1, "an interrupted job keeps its upload for a resume")
        }
    }

    @Test("a second upload while one is in progress is refused with 429, Retry-After and who holds the place")
    func secondUploadWaits() async throws {
        let fixture = try await Fixture(devices: 4)
        try await withConsole(fixture, fixture.configuration()) { console in
            let first = Array(fixture.csv(0..<2).utf8)
            let held = try await LoopbackHTTPConnection(port: console.port)
            var headers = console.headers
            headers["Content-Length"] = String(first.count)
            try await held.sendHead("POST", "/batch?name=first.csv&account=alice&home=lab", headers: headers)
            try await held.send(Array(first.prefix(10)))
            // The place is taken before the upload's file is made.
            try await Self.waitFor("the first upload's file") { fixture.uploads.count == 1 }

            let second = try await console.upload(fixture.csv(2..<4), name: "second.csv")
            #expect(second.status == 429, "\(second.text)")
            #expect(second.json["code"] as? String == "RATE_LIMITED")
            let message = second.json["message"] as? String ?? ""
            #expect(message.contains("ana is uploading first.csv"), "\(message)")
            #expect(message.contains("batch_concurrency"), "\(message)")
            let retry = try #require(second.header("Retry-After").flatMap(Int.init), "\(second.fields)")
            #expect((5...3600).contains(retry))

            try await held.send(Array(first.dropFirst(10)))
            let accepted = try await held.readResponse()
            #expect(accepted.status == 202, "\(accepted.text)")
            let id = try #require(accepted.json["id"] as? Int)
            #expect(try await console.waitUntilDone(id)["bound"] as? Int == 2)
            // The place is free again.
            let third = try await console.upload(fixture.csv(2..<4), name: "second.csv")
            #expect(third.status == 202, "\(third.text)")
            _ = try await console.waitUntilDone(try #require(third.json["id"] as? Int))
        }
    }

    @Test("once the batches stop (the daemon's graceful stop), an upload is refused with 503 and Retry-After")
    func stoppedBatchesRefuseUploads() async throws {
        let fixture = try await Fixture(devices: 1)
        try await withConsole(fixture, fixture.configuration()) { console in
            await console.parts.batches.stop()
            let refused = try await console.upload(fixture.csv(0..<1))
            #expect(refused.status == 503, "\(refused.text)")
            #expect(refused.header("Retry-After") != nil)
            #expect(fixture.uploads == [])
        }
    }

    @Test(
        "an upload being received when the batches stop is refused with 503 at once and its part deleted, however slowly its client sends"
    )
    func stopEndsAStalledUpload() async throws {
        let fixture = try await Fixture(devices: 0)
        try await withConsole(fixture, fixture.configuration()) { console in
            let held = try await LoopbackHTTPConnection(port: console.port, timeout: .seconds(20))
            var headers = console.headers
            headers["Content-Length"] = String(512 * 1024)
            try await held.sendHead("POST", "/batch?name=slow.csv&account=alice&home=lab", headers: headers)
            try await held.send(Self.filler(300 * 1024, header: true))
            try await Self.waitFor("the stalled upload's first part on disk") {
                fixture.uploads.count == 1
                    && Self.fileSize(fixture.batchDirectory + "/" + fixture.uploads[0]) >= 256 * 1024
            }
            // The client sends nothing more: the stop must not wait for it.
            await console.parts.batches.stop()
            let refused = try await held.readResponse()
            #expect(refused.status == 503, "\(refused.text)")
            #expect(refused.json["code"] as? String == "DAEMON_NOT_RUNNING", "\(refused.text)")
            #expect(refused.header("Retry-After") == "30")
            try await Self.waitFor("the stalled upload's part deleted") { fixture.files.isEmpty }
        }
    }

    // MARK: What a job leaves, and the sweep

    @Test(
        "a finished batch's upload is deleted and its report kept; the sweep on its timer removes the report after the retention"
    )
    func retentionSweepsReports() async throws {
        let fixture = try await Fixture(devices: 3)
        try await withConsole(fixture, fixture.configuration(retention: .seconds(7 * 86_400))) { console in
            let accepted = try await console.upload(fixture.csv(0..<3))
            #expect(accepted.status == 202, "\(accepted.text)")
            let id = try #require(accepted.json["id"] as? Int)
            let done = try await console.waitUntilDone(id)
            #expect(done["bound"] as? Int == 3)
            #expect(done["report"] as? String == "/batch/\(id)/report.csv")
            #expect(fixture.uploads == [], "the upload is not needed once its job finished")
            #expect(fixture.reports.count == 1)
            let report = try await LoopbackHTTPConnection.request(
                port: console.port,
                "GET",
                "/batch/\(id)/report.csv",
                headers: ["Cookie": console.cookie]
            )
            #expect(report.status == 200)
            #expect(report.text.hasPrefix("line,status,code"))
            #expect(report.text.components(separatedBy: ",bound,").count == 4, "\(report.text)")

            let timer = ManualClock()
            let sweeping = Task { await console.parts.batches.sweepPeriodically(every: .seconds(3600), clock: timer) }
            defer { sweeping.cancel() }
            await timer.waitForSleepers(1)
            #expect(fixture.reports.count == 1, "swept at start: the report is a day old at most")
            fixture.wall.advance(by: 6 * 86_400)
            timer.advance(by: .seconds(3600))
            await timer.waitForSleepers(1)
            #expect(fixture.reports.count == 1, "six days: still within the retention")
            fixture.wall.advance(by: 2 * 86_400)
            timer.advance(by: .seconds(3600))
            await timer.waitForSleepers(1)
            #expect(fixture.files == [], "eight days: the report is past the retention")
            // Eight days also ended ana's session (the store's sessions read the same wall clock).
            let console = try await console.signedInAgain()
            let after = try await console.progress(id)
            #expect(after["status"] as? String == "finished")
            #expect(after["report"] == nil)
            let gone = try await LoopbackHTTPConnection.request(
                port: console.port,
                "GET",
                "/batch/\(id)/report.csv",
                headers: ["Cookie": console.cookie]
            )
            #expect(gone.status == 404)
        }
    }

    @Test(
        "a job interrupted at a chunk boundary is listed after a restart as interrupted; a resume binds the rest exactly once"
    )
    func interruptedJobResumes() async throws {
        let fixture = try await Fixture(devices: 12)
        // What a stop leaves: the batch ran by the console's rules on a file in its directory and
        // stopped after its first chunk (of 4 rows), committed.
        try FileManager.default.createDirectory(atPath: fixture.batchDirectory, withIntermediateDirectories: true)
        let input = fixture.batchDirectory + "/upload-1790000000000-1-tray.csv.csv"
        try fixture.csv(0..<12).write(toFile: input, atomically: true, encoding: .utf8)
        final class Chunks { var committed = 0 }
        let chunks = Chunks()
        let stopped = try BatchBinder(registry: fixture.registry, cloud: fixture.cloud).run(
            BatchRequest(
                inputPath: input,
                reportPath: input + ".report.csv",
                defaultAccount: "alice",
                defaultHome: "lab",
                operator: "ana",
                chunkSize: 4
            ),
            progress: { _ in chunks.committed += 1 },
            shouldStop: { chunks.committed >= 1 }
        )
        #expect(stopped.stopped && stopped.rows == 4)
        let id = Int(try #require(stopped.jobId))

        // A console started afresh over the same store and directory: a restart.
        try await withConsole(fixture, fixture.configuration()) { console in
            let before = try await console.progress(id)
            #expect(before["status"] as? String == "interrupted", "\(before)")
            #expect(before["resume"] as? String == "/batch/\(id)/resume")
            let page = try await console.client.execute(uri: "/batch", method: .get, headers: [.cookie: console.cookie])
            let html = String(buffer: page.body)
            #expect(html.contains("interrupted at line 6"), "\(html)")
            // The resume is a form of its own in the job's row, with the session's token.
            #expect(
                html.contains(
                    "action=\"/batch/\(id)/resume\"><input type=\"hidden\" name=\"csrf\" value=\"\(console.csrf)\">"
                ),
                "\(html)"
            )

            let resumed = try await LoopbackHTTPConnection.request(
                port: console.port,
                "POST",
                "/batch/\(id)/resume",
                headers: console.headers
            )
            #expect(resumed.status == 202, "\(resumed.text)")
            let done = try await console.waitUntilDone(id)
            #expect(done["status"] as? String == "finished", "\(done)")
            #expect(done["rows"] as? Int == 12)
            #expect(done["bound"] as? Int == 12)
            #expect(try fixture.registry.console.searchBindings("", offset: 0, limit: 100).items.count == 12)
            let report = try String(contentsOfFile: input + ".report.csv", encoding: .utf8)
            let lines = report.split(separator: "\n").dropFirst().map {
                $0.split(separator: ",", omittingEmptySubsequences: false)
            }
            #expect(lines.map { String($0[0]) } == (2...13).map(String.init), "every line once: \(report)")
            #expect(lines.allSatisfy { $0[1] == "bound" }, "\(report)")
            #expect(fixture.uploads == [], "the upload goes once the job finished")
            // Resuming what is finished is refused.
            let again = try await LoopbackHTTPConnection.request(
                port: console.port,
                "POST",
                "/batch/\(id)/resume",
                headers: console.headers
            )
            #expect(again.status == 400, "\(again.text)")
        }
    }

    // MARK: Pure decisions

    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func job(
        _ id: Int64,
        _ name: String,
        updated daysAgo: Double,
        finished: Bool = false,
        abandoned: Bool = false
    ) -> BatchJobRecord {
        let updated = now.addingTimeInterval(-daysAgo * 86_400)
        return BatchJobRecord(
            id: id,
            inputPath: "/b/upload-\(name).csv",
            inputSize: 100,
            reportPath: "/b/upload-\(name).csv.report.csv",
            startedAt: updated,
            updatedAt: updated,
            finishedAt: finished ? updated : nil,
            abandonedAt: abandoned ? updated : nil
        )
    }

    static func file(_ name: String, hoursOld: Double = 0) -> ConsoleBatchFiles.Entry {
        .init(path: "/b/" + name, size: 10, modified: now.addingTimeInterval(-hoursOld * 3600))
    }

    @Test("the retention plan keeps what a running, resumable or recent job needs and removes the rest")
    func retentionPlan() {
        let retention = ConsoleBatchRetention(retention: .seconds(7 * 86_400))
        let files =
            [
                "upload-run.csv", "upload-run.csv.report.csv",  // running here
                "upload-open.csv", "upload-open.csv.report.csv",  // interrupted 2 days ago
                "upload-stale.csv", "upload-stale.csv.report.csv",  // interrupted 9 days ago
                "upload-done.csv", "upload-done.csv.report.csv",  // finished a day ago (upload left by a crash)
                "upload-old.csv.report.csv",  // finished 8 days ago
                "upload-lost.csv.report.csv",  // interrupted, its upload gone
            ].map { Self.file($0) } + [
                Self.file("upload-orphan.csv", hoursOld: 2), Self.file("upload-fresh.csv", hoursOld: 0.1),
                Self.file("notes.txt", hoursOld: 100),
            ]
        let jobs = [
            Self.job(1, "run", updated: 0), Self.job(2, "open", updated: 2), Self.job(3, "stale", updated: 9),
            Self.job(4, "done", updated: 1, finished: true), Self.job(5, "old", updated: 8, finished: true),
            Self.job(6, "lost", updated: 1),
        ]
        let plan = retention.plan(files: files, jobs: jobs, active: ["/b/upload-run.csv"], now: Self.now)
        #expect(plan.abandon == [3, 6])
        #expect(
            plan.remove == [
                "/b/upload-done.csv", "/b/upload-old.csv.report.csv", "/b/upload-orphan.csv", "/b/upload-stale.csv",
                "/b/upload-stale.csv.report.csv",
            ]
        )
    }

    @Test("the quota refuses a file past the largest upload, and one whose report would not fit")
    func quota() {
        let quota = ConsoleBatchQuota(maxUploadBytes: 64 << 20, quotaBytes: 1 << 30)
        #expect(quota.refusal(bytes: 64 << 20, used: 0) == nil)
        let large = quota.refusal(bytes: (64 << 20) + 1, used: 0)
        #expect(large?.error.code == .payloadTooLarge)
        #expect(large?.error.message.contains("at most 64 MiB") == true)
        #expect(quota.refusal(bytes: 10 << 20, used: 980 << 20) == nil)
        let full = quota.refusal(bytes: 20 << 20, used: 980 << 20)
        #expect(full?.error.message.contains("980 MiB of 1024 MiB in use") == true, "\(full?.error.message ?? "")")
        #expect(full?.error.message.contains("needs about 80 MiB") == true)
        #expect(full?.retryAfterSeconds == nil)
    }

    @Test("a busy answer names the running batch, who started it and its progress, with a time to retry from its pace")
    func busyMessage() {
        var holder = ConsoleBatches.Slot(operatorName: "ana", name: "tray.csv")
        holder.jobID = 12
        holder.bytesTotal = 1000
        holder.bytesAtStart = 0
        holder.bytesDone = 450
        let started = ContinuousClock.now
        holder.runStarted = started
        let refusal = ConsoleBatches.busy(holder, maximum: 1, now: started + .seconds(9))
        #expect(refusal.error.code == .rateLimited)
        #expect(
            refusal.error.message.hasPrefix(
                "batch 12 (tray.csv), started by ana, is running (45 % done); one batch runs at a time"
            ),
            "\(refusal.error.message)"
        )
        // 450 bytes in 9 s, 550 to go: about 11 s.
        #expect(refusal.retryAfterSeconds == 11, "\(refusal.retryAfterSeconds ?? 0)")
    }

    @Test("an upload's name is kept in its file name with anything but letters, digits, '.', '-', '_' replaced")
    func fileNames() {
        #expect(ConsoleBatches.fileName("Tray 1/../x.csv") == "Tray_1_.._x.csv")
        #expect(ConsoleBatches.fileName("../..") == "upload.csv")
        #expect(ConsoleBatches.fileName("é.csv") == "_.csv")
        #expect(ConsoleBatches.fileName(String(repeating: "a", count: 100)).count == 64)
        #expect(ConsoleBatches.displayName("/d/upload-1790000000000-3-Tray_1.csv.csv") == "Tray_1.csv")
        #expect(ConsoleBatches.displayName("/d/upload-1790000000000-3-tray.csv") == "tray")
    }
}
