import DeviceIdentity
import Foundation
import Registry
import Testing

@Suite("nbgw bind --csv, run as a real process")
struct CLIBatchTests {
    /// Registers `count` modules straight through the registry and returns their label payloads.
    func registerDevices(_ cli: CLI, count: Int) throws -> [String] {
        let registry = try Registry(path: cli.database)
        try registry.directory.addAccount(name: "alice", role: .owner)
        try registry.directory.addHome(name: "lab", owner: "alice")
        return try (0..<count).map { serial in
            let payload = String(format: "35693803%06d", serial)
            let imei = try IMEI(payload + String(Luhn.checkDigit(for: payload)))
            let device = try #require(
                try registry.directory.recordRegistration(
                    ModuleIdentity(imei: imei),
                    deviceID: try! DeviceID(String(format: "dev%08d", serial)),
                    labelCode: String(format: "LBL%08d", serial),
                    minted: true
                )
            ).device
            return "https://nbgw.local/d/" + device.labelCode
        }
    }

    @Test("kill -9 at random moments, then rerun: every row bound exactly once, every line reported exactly once")
    func killAndResumeIsExactlyOnce() throws {
        let cli = try CLI()
        let count = 6000
        let labels = try registerDevices(cli, count: count)
        let input = cli.directory.appendingPathComponent("labels.csv").path
        try Data(("qr,ref\n" + labels.enumerated().map { "\($1),row\($0)" }.joined(separator: "\n") + "\n").utf8)
            .write(to: URL(fileURLWithPath: input))
        let arguments = [
            "bind", "--csv", input, "--account", "alice", "--home", "lab", "--chunk-size", "150", "--json",
        ]
        let reportPath = input + ".report.csv"
        var generator = SystemRandomNumberGenerator()
        var killed = 0
        var finished: CLI.Result?
        for _ in 0..<40 {
            // A random moment of the run, picked by its progress (the report grows a chunk at a time),
            // not by the clock: a fixed range of waits either never reached the work on a slow machine
            // or outlasted the whole run on a fast one (CI: 6000 rows done before any kill).
            let reported = Self.lineCount(reportPath)
            let started = try cli.start(arguments)
            if count - reported > 5 * 150 {
                // Four chunks short of the end at most: the pipelined batch reports a chunk before
                // it commits and runs a chunk in a few milliseconds, so a target in the last chunks
                // plus the pause below let a first run finish unkilled (ci-local, 2439bde).
                let target = reported + Int.random(in: 1...(count - reported - 4 * 150), using: &generator)
                while started.0.isRunning && Self.lineCount(reportPath) < target { usleep(1_000) }
                // Then somewhere inside the next chunk, not always right after a flush.
                usleep(UInt32.random(in: 0...3_000, using: &generator))
            }
            if started.0.isRunning {
                kill(started.0.processIdentifier, SIGKILL)
            }
            let result = CLI.finish(started)
            if started.0.terminationReason == .uncaughtSignal {
                killed += 1
                continue
            }
            finished = result
            break
        }
        if finished == nil { finished = try cli.run(arguments: arguments) }
        let summary = finished!.json
        #expect(finished!.status == 0, "\(finished!.stdout) \(finished!.stderr)")
        #expect(killed >= 1, "no run was interrupted; the test proved nothing")
        #expect(summary["rows"] as? Int == count)
        // Usually the last run resumes the job and reports the remaining rows as bound; when a kill
        // landed after the job's final commit, the rerun is a new job and every row is unchanged.
        #expect((summary["bound"] as? Int ?? 0) + (summary["unchanged"] as? Int ?? 0) == count)

        let registry = try Registry(path: cli.database)
        var bound = 0
        var cursor = ""
        while true {
            let page = try registry.bindings.list(limit: 1000, after: cursor)
            bound += page.count
            guard let last = page.last else { break }
            cursor = last.deviceID
        }
        #expect(bound == count)
        let binds = try registry.audit.entries(limit: 100_000).filter { $0.event == "bind" }
        #expect(binds.count == count)
        #expect(Set(binds.compactMap(\.deviceID)).count == count)

        let report = try String(contentsOfFile: input + ".report.csv", encoding: .utf8)
            .split(separator: "\n").dropFirst()
        let lines = report.map { $0.split(separator: ",", maxSplits: 1)[0] }.compactMap { Int($0) }
        #expect(lines.count == count)
        #expect(lines == Array(2...(count + 1)))
    }

    /// Lines in the file at `path` so far (0 when there is none yet).
    static func lineCount(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        return data.withUnsafeBytes { bytes in
            guard var cursor = bytes.baseAddress else { return 0 }
            var remaining = bytes.count
            var lines = 0
            while remaining > 0, let found = memchr(cursor, 0x0A, remaining).map(UnsafeRawPointer.init) {
                lines += 1
                remaining -= cursor.distance(to: found) + 1
                cursor = found + 1
            }
            return lines
        }
    }

    @Test("Batch exit statuses: 1 when rows failed, MISSING_FIELD's status without a qr header, JSON summary")
    func exitStatuses() throws {
        let cli = try CLI()
        let labels = try registerDevices(cli, count: 2)
        let input = cli.directory.appendingPathComponent("in.csv").path
        try Data("qr\n\(labels[0])\nnot-a-label\n".utf8).write(to: URL(fileURLWithPath: input))
        let result = try cli.run("bind", "--csv", input, "--account", "alice", "--home", "lab", "--json")
        #expect(result.status == 1)
        #expect(result.json["bound"] as? Int == 1)
        #expect((result.json["failuresByCode"] as? [String: Int])?["QR_PROTOCOL_NOT_RECOGNIZED"] == 1)
        let headerless = cli.directory.appendingPathComponent("bad.csv").path
        try Data("code\nx\n".utf8).write(to: URL(fileURLWithPath: headerless))
        let bad = try cli.run("bind", "--csv", headerless, "--account", "alice", "--home", "lab", "--json")
        #expect(bad.status == 41)
        #expect(bad.errorCode == "MISSING_FIELD")
        let both = try cli.run("bind", "--csv", input, "--qr", "x", "--account", "alice", "--home", "lab")
        #expect(both.status == 64)
    }
}
