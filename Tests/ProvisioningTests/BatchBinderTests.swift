import Cloud
import DeviceIdentity
import Foundation
import Provisioning
import Registry
import Testing

@Suite("CSV batch binding")
struct BatchBinderTests {
    /// A store with owner alice (home lab), guest gus, bob (home bobs), and `count` registered devices.
    final class Fixture: Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-batch-\(UUID().uuidString)")
        let registry: Registry
        let cloud: EmbeddedCloud
        let labels: [String]
        let ids: [String]

        init(devices count: Int = 6) async throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            registry = try Registry(path: directory.appendingPathComponent("s.sqlite").path)
            cloud = EmbeddedCloud()
            try registry.directory.addAccount(name: "alice", role: .owner)
            try registry.directory.addAccount(name: "bob", role: .owner)
            try registry.directory.addAccount(name: "gus", role: .guest)
            try registry.directory.addHome(name: "lab", owner: "alice")
            try registry.directory.addHome(name: "bobs", owner: "bob")
            var labels: [String] = []
            var ids: [String] = []
            for serial in 0..<count {
                let payload = String(format: "35693803%06d", serial)
                let registration = try await DeviceRegistrar(cloud: cloud, registry: registry).register(
                    imei: payload + String(Luhn.checkDigit(for: payload))
                )
                labels.append(registration.labelPayload)
                ids.append(registration.device.deviceID)
            }
            self.labels = labels
            self.ids = ids
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        func report(_ path: String) throws -> [[String]] {
            let reader = try CSVReader(path: path)
            var rows: [[String]] = []
            while let record = try reader.next() { rows.append(record.fields) }
            return Array(rows.dropFirst())
        }

        func binder() -> BatchBinder { BatchBinder(registry: registry, cloud: cloud) }
    }

    @Test("Every data line gets one report row with its status, code, device and ref")
    func reportCoversEveryLine() async throws {
        let f = try await Fixture()
        let json =
            "{\"\"actionName\"\":\"\"device_net_conn_bind_nb\"\",\"\"actionData\"\":{\"\"id\"\":\"\"\(f.ids[1])\"\"}}"
        let csv =
            "\u{FEFF}qr,account,home,ref,colour\r\n"
            + "\(f.labels[0]),,,r-label,red\r\n"
            + "\"\(json)\",,,\"r,json\",blue\r\n"
            + "\r\n"
            + "\(f.labels[2]),gus,lab,guest,\r\n"
            + "\(f.labels[3]),alice,bobs,stranger,\r\n"
            + "\(f.labels[0]),,,dup,\r\n"
            + "MT:-24J042C00KA0648G00,,,matter,\r\n"
            + "hello,,,junk,\r\n"
            + ",,,empty,\r\n"
            + "\(f.labels[4]),bob,bobs,\"multi\nline\",\r\n"
            + "\(EmbeddedCloud.defaultLabelBase)ZZZZZZZZ,,,unknown,\r\n"
            + "https://elsewhere.example/d/ABCDEFGH,,,foreign,\r\n"
            + "\(f.labels[5]),nobody,lab,who,\r\n"
        let input = try f.write("in.csv", Array(csv.utf8))
        let summary = try f.binder().run(BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab"))
        let rows = try f.report(input + ".report.csv")
        let table = rows.map { [$0[0], $0[1], $0[2], $0[5]] }
        #expect(
            table == [
                ["2", "bound", "", "r-label"],
                ["3", "bound", "", "r,json"],
                ["5", "failed", "GUEST_NOT_ALLOWED_STRONG_BIND", "guest"],
                ["6", "failed", "HOME_ACCESS_DENIED", "stranger"],
                ["7", "failed", "DUPLICATE_IN_FILE", "dup"],
                ["8", "failed", "NOT_NB_DEVICE", "matter"],
                ["9", "failed", "QR_PROTOCOL_NOT_RECOGNIZED", "junk"],
                ["10", "failed", "MISSING_FIELD", "empty"],
                ["11", "bound", "", "multi\nline"],
                ["13", "failed", "UNKNOWN_DEVICE", "unknown"],
                ["14", "failed", "QR_PROTOCOL_NOT_RECOGNIZED", "foreign"],
                ["15", "failed", "UNKNOWN_ACCOUNT", "who"],
            ]
        )
        #expect(rows[4][3].contains("line 2"))
        #expect(rows[1][4] == f.ids[1])
        #expect(summary.bound == 3)
        #expect(summary.failed == 9)
        #expect(summary.failuresByCode["QR_PROTOCOL_NOT_RECOGNIZED"] == 2)
        #expect(summary.ignoredColumns == ["colour"])
        #expect(try f.registry.bindings.find(deviceID: f.ids[4])?.account == "bob")
        #expect(try f.registry.bindings.find(deviceID: f.ids[0])?.source == .csv)
        let audit = try f.registry.audit.entries(deviceID: f.ids[0])
        #expect(audit.filter { $0.event == "bind" }.count == 1)
    }

    /// The batch compares a label's base with the cloud's without lower-casing it first when they
    /// are equal (the common case, no string made per row); a base in other letter case still
    /// takes the full comparison.
    @Test("A label of this gateway written in upper case binds like its lower-case form")
    func upperCaseLabelBase() async throws {
        let f = try await Fixture(devices: 2)
        let base = EmbeddedCloud.defaultLabelBase
        #expect(f.labels[1].hasPrefix(base))
        let shouted = base.uppercased() + f.labels[1].dropFirst(base.count)
        let input = try f.write("in.csv", Array("qr\n\(f.labels[0])\n\(shouted)\n".utf8))
        let summary = try f.binder().run(BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab"))
        let report = try f.report(input + ".report.csv")
        #expect(summary.bound == 2, "\(report)")
        #expect(try f.registry.bindings.find(deviceID: f.ids[1])?.account == "alice")
    }

    @Test("Re-running the same file binds nothing twice: bound rows become unchanged")
    func rerunIsIdempotent() async throws {
        let f = try await Fixture()
        let input = try f.write("in.csv", Array(("qr\n" + f.labels.joined(separator: "\n") + "\n").utf8))
        let first = try f.binder().run(BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab"))
        #expect(first.bound == 6)
        let second = try f.binder().run(BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab"))
        #expect(second.bound == 0)
        #expect(second.unchanged == 6)
        #expect(second.jobId != first.jobId)
        #expect(try f.registry.bindings.list().count == 6)
        #expect(try f.registry.audit.entries().filter { $0.event == "bind" }.count == 6)
    }

    @Test("A dry run validates against the store and writes only the report")
    func dryRunWritesNothing() async throws {
        let f = try await Fixture()
        let input = try f.write("in.csv", Array(("qr\n" + f.labels[0] + "\n" + f.labels[0] + "\nnope\n").utf8))
        let summary = try f.binder().run(
            BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab", dryRun: true)
        )
        #expect(summary.bound == 1)
        #expect(summary.failuresByCode == ["DUPLICATE_IN_FILE": 1, "QR_PROTOCOL_NOT_RECOGNIZED": 1])
        #expect(summary.jobId == nil)
        #expect(try f.registry.bindings.list().isEmpty)
        #expect(try f.registry.audit.entries().filter { $0.event == "bind" }.isEmpty)
        #expect(try f.report(input + ".report.csv").count == 3)
    }

    @Test("A missing qr column is refused before any work")
    func missingQRColumn() async throws {
        let f = try await Fixture()
        let input = try f.write("in.csv", Array("label,account\nx,alice\n".utf8))
        do {
            _ = try f.binder().run(BatchRequest(inputPath: input))
            Issue.record("ran without a qr column")
        } catch {
            #expect(error.code == .missingField)
            #expect(error.message.contains("qr"))
        }
        #expect(!FileManager.default.fileExists(atPath: input + ".report.csv"))
    }

    @Test("A stop between chunks commits what ran; rerunning resumes and the report covers each line once")
    func stopAndResume() async throws {
        let f = try await Fixture(devices: 6)
        let input = try f.write(
            "in.csv",
            Array(("qr,ref\n" + f.labels.enumerated().map { "\($1),r\($0)" }.joined(separator: "\n") + "\n").utf8)
        )
        var polls = 0
        let stopped = try f.binder().run(
            BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab", chunkSize: 2),
            shouldStop: {
                polls += 1
                return polls > 1
            }
        )
        #expect(stopped.stopped)
        #expect(stopped.rows == 2)
        #expect(stopped.stoppedAtLine == 4)
        #expect(try f.registry.bindings.list().count == 2)
        let resumed = try f.binder().run(
            BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab", chunkSize: 2)
        )
        #expect(resumed.resumedFromLine == 4)
        #expect(resumed.jobId == stopped.jobId)
        #expect(resumed.rows == 6)
        #expect(resumed.bound == 6)
        #expect(resumed.rowsThisRun == 4)
        #expect(try f.report(input + ".report.csv").map { $0[0] } == ["2", "3", "4", "5", "6", "7"])
    }

    @Test("An unfinished job whose file changed is not resumed blindly; --restart starts over")
    func changedFileNeedsRestart() async throws {
        let f = try await Fixture()
        let input = try f.write("in.csv", Array(("qr\n" + f.labels.joined(separator: "\n") + "\n").utf8))
        _ = try f.binder().run(
            BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab", chunkSize: 2),
            shouldStop: { true }
        )
        _ = try f.write("in.csv", Array(("qr\n" + f.labels.reversed().joined(separator: "\n") + "\n#\n").utf8))
        do {
            _ = try f.binder().run(BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab"))
            Issue.record("resumed a changed file")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("--restart"))
        }
        let restarted = try f.binder().run(
            BatchRequest(inputPath: input, defaultAccount: "alice", defaultHome: "lab", restart: true)
        )
        #expect(restarted.bound == 6)
        #expect(restarted.failed == 1)
    }
}
