import DeviceIdentity
import Foundation
import Registry
import Testing

@Suite("nbgw store backup / check, run as real processes")
struct CLIStoreTests {
    @Test("a backup taken while a batch process binds is sound, opens with --db, and the batch is undisturbed")
    func backupDuringABatch() throws {
        let cli = try CLI()
        let count = 3000
        let labels = try CLIBatchTests().registerDevices(cli, count: count)
        let input = cli.directory.appendingPathComponent("labels.csv").path
        try Data(("qr\n" + labels.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
        let reportPath = input + ".report.csv"

        // The writer: a real `nbgw bind --csv` process, committing every row on its own.
        let batch = try cli.start([
            "bind", "--csv", input, "--account", "alice", "--home", "lab", "--chunk-size", "1", "--json",
        ])
        while batch.0.isRunning && CLIBatchTests.lineCount(reportPath) < 100 { usleep(2_000) }
        // Backups one after another until the batch ends; those that finished while it still ran
        // overlapped its commits.
        var overlapped: [(path: String, result: CLI.Result)] = []
        for round in 0..<50 where batch.0.isRunning {
            let path = cli.directory.appendingPathComponent("backup-\(round).sqlite").path
            let backup = try cli.run("store", "backup", path, "--json")
            #expect(backup.status == 0, "\(backup.stdout) \(backup.stderr)")
            if batch.0.isRunning { overlapped.append((path, backup)) }
        }
        let finished = CLI.finish(batch)
        #expect(finished.status == 0, "\(finished.stdout) \(finished.stderr)")
        #expect(finished.json["bound"] as? Int == count, "the batch was disturbed")
        #expect(!overlapped.isEmpty, "the batch ended before any backup: the test raced nothing")
        guard let (backupPath, backup) = overlapped.last else { return }

        let check = backup.json["check"] as? [String: Any] ?? [:]
        #expect(check["integrity"] as? [String] == ["ok"])
        #expect(check["schema"] as? String == "current")
        let copied = (check["rows"] as? [String: Any])?["binding"] as? Int ?? -1
        #expect(copied > 0 && copied < count, "the copy should hold part of the batch, has \(copied)")

        // The copy is an nbgw store: `--db FILE` reads it like the live one, and it checks clean.
        let list = try cli.run("bindings", "list", "--db", backupPath, "--json")
        #expect(list.status == 0, "\(list.stderr)")
        #expect((list.json["bindings"] as? [Any])?.count == copied)
        let checked = try cli.run("store", "check", "--db", backupPath)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("integrity ok"))
        #expect(checked.stdout.contains("binding \(copied),"))

        // A second backup to the same name is refused, and the first stays as it was.
        let again = try cli.run("store", "backup", backupPath, "--json")
        #expect(again.status == 40)
        #expect(again.errorCode == "INVALID_ARGUMENT")
        #expect(try cli.run("store", "check", "--db", backupPath).status == 0)
    }

    @Test("store check on a damaged file exits 70 and says to restore from a backup")
    func checkReportsDamage() throws {
        let cli = try CLI()
        _ = try CLIBatchTests().registerDevices(cli, count: 2000)
        #expect(try cli.run("store", "check").status == 0)
        // A sound copy, then a page in its middle overwritten: what a bad sector or a torn `cp` leaves.
        let damaged = cli.directory.appendingPathComponent("damaged.sqlite").path
        #expect(try cli.run("store", "backup", damaged).status == 0)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: damaged))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2 / 4096 * 4096)
        handle.write(Data(repeating: 0x5A, count: 4096))
        try handle.close()

        let result = try cli.run("store", "check", "--db", damaged)
        #expect(result.status == 70)
        #expect(result.stderr.contains("STORE_UNAVAILABLE"))
        #expect(result.stderr.contains("restore"))
    }

    @Test("store check with no store exits 70 and creates none")
    func checkMissing() throws {
        let cli = try CLI()
        let result = try cli.run("store", "check")
        #expect(result.status == 70)
        #expect(!FileManager.default.fileExists(atPath: cli.database))
    }
}
