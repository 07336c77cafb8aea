import Foundation
import Registry
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `nbgw bind --csv` asked to stop, by Ctrl-C or by `kill`/`systemctl stop`/`timeout(1)` (SIGTERM):
/// it stops at a chunk boundary, prints its summary, exits 130, and the rerun resumes exactly
/// there (security review I5: SIGTERM killed it with 143 and no summary).
@Suite("nbgw bind --csv, stopped by a signal, as a real process", .serialized)
struct CLIBatchSignalTests {
    @Test(
        "SIGINT or SIGTERM mid-batch: the summary, exit 130, and a rerun that binds and reports every row exactly once",
        arguments: [SIGINT, SIGTERM]
    )
    func stopsAndResumes(signal: Int32) throws {
        let cli = try CLI()
        let count = 8000
        let labels = try CLIBatchTests().registerDevices(cli, count: count)
        let input = cli.directory.appendingPathComponent("labels.csv").path
        try Data(("qr,ref\n" + labels.enumerated().map { "\($1),row\($0)" }.joined(separator: "\n") + "\n").utf8)
            .write(to: URL(fileURLWithPath: input))
        let reportPath = input + ".report.csv"
        let arguments = [
            "bind", "--csv", input, "--account", "alice", "--home", "lab", "--chunk-size", "50", "--json",
        ]
        let started = try cli.start(arguments)
        // A few chunks in (the report grows a chunk at a time), far from the end.
        while started.0.isRunning && CLIBatchTests.lineCount(reportPath) < 200 { usleep(1_000) }
        try #require(started.0.isRunning, "the batch ended before it could be stopped; the test proved nothing")
        kill(started.0.processIdentifier, signal)
        let stopped = CLI.finish(started)
        #expect(started.0.terminationReason == .exit, "killed by the signal instead of stopping: \(stopped.stderr)")
        #expect(stopped.status == 130, "\(stopped.stderr)")
        let summary = stopped.json
        #expect(summary["stopped"] as? Bool == true, "\(stopped.stdout)")
        let stoppedAt = try #require(summary["stoppedAtLine"] as? Int, "\(stopped.stdout)")
        let rows = try #require(summary["rows"] as? Int)
        #expect(rows > 0 && rows < count && stoppedAt == rows + 2, "\(stopped.stdout)")
        #expect(stopped.stderr.contains("stopped at line \(stoppedAt); everything before it is committed"))
        #expect(stopped.stderr.contains("stopping at the next chunk boundary"))
        #expect(CLIBatchTests.lineCount(reportPath) == rows + 1, "the report ends at the last commit")

        let resumed = try cli.run(arguments: arguments)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.json["resumedFromLine"] as? Int == stoppedAt, "\(resumed.stdout)")
        #expect(resumed.json["rows"] as? Int == count)
        #expect(resumed.json["bound"] as? Int == count)
        #expect(resumed.json["rowsThisRun"] as? Int == count - rows)

        let report = try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(
            report.map { $0.split(separator: ",", maxSplits: 1)[0] }.compactMap { Int($0) } == Array(2...(count + 1))
        )
        let registry = try Registry(path: cli.database)
        #expect(try registry.bindings.list(limit: count + 1).count == count)
    }
}
