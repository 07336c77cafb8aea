import Foundation
import GRDB
import NBGWCore
import Registry
import Synchronization
import Testing

/// `Registry.backup(storeAt:to:)` and `Registry.check(path:)` on real SQLite files, with a second
/// registry (its own connections, as another process has) writing all the while.
@Suite("store backup and check")
struct RegistryBackupTests {
    @Test("a backup taken while another connection writes holds every commit made before it, and no torn one")
    func backupWhileWriting() throws {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        for index in 0..<2000 { try registry.directory.addAccount(name: "seed-\(index)", role: .owner) }

        // The writer: its own Registry (own pool, own connections), adding accounts until told to stop.
        let stop = Atomic<Bool>(false)
        let written = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let writerDone = DispatchSemaphore(value: 0)
        Thread {
            do {
                let writer = try Registry(path: store.path)
                var index = 0
                while !stop.load(ordering: .acquiring) {
                    try writer.directory.addAccount(name: "live-\(index)", role: .guest)
                    index += 1
                    written.store(index, ordering: .releasing)
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
            writerDone.signal()
        }.start()

        var reports: [StoreBackupReport] = []
        for round in 0..<5 {
            // Wait until the writer has committed more since the last round, so every copy races it.
            let before = written.load(ordering: .acquiring)
            while written.load(ordering: .acquiring) < before + 20 { usleep(1_000) }
            let committedBefore = 2000 + written.load(ordering: .acquiring)
            let destination = store.directory.appendingPathComponent("backup-\(round).sqlite").path
            let report = try Registry.backup(storeAt: store.path, to: destination)
            let committedAfter = 2000 + written.load(ordering: .acquiring)
            reports.append(report)

            #expect(report.check.isSound, "\(report.check.integrity)")
            #expect(report.check.schema == .current)
            let copied = report.check.rows["account"] ?? -1
            // Every account committed before the backup began is in it (a copy of the main file alone
            // misses those still in the -wal file), and nothing that was not committed by its end.
            #expect(copied >= committedBefore, "copy has \(copied), \(committedBefore) were committed before it")
            #expect(copied <= committedAfter + 1)

            // The copy is a store in its own right: it opens, and its rows agree with its audit log.
            let copy = try Registry(path: destination)
            #expect(try copy.directory.accounts().count == copied)
            let audited = try DatabaseQueue(path: destination).read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM audit_log WHERE event = 'account_add'")
            }
            #expect(audited == copied)
            let mode = try FileManager.default.attributesOfItem(atPath: destination)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
        stop.store(true, ordering: .releasing)
        writerDone.wait()
        #expect(failures.withLock { $0 } == [], "the writer failed while backups ran")
        #expect(Set(reports.map { $0.check.rows["account"] ?? 0 }).count == reports.count, "the copies did not race")
        // Nothing but the backups was left beside them (no temporary copies, no -wal/-shm of one).
        let left = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter {
            $0.hasPrefix(".") || $0.hasPrefix("backup-") && !$0.hasSuffix(".sqlite")
        }
        #expect(left == [])
    }

    @Test("a backup never overwrites: an existing file stays as it was, and the error says so")
    func refusesToOverwrite() throws {
        let store = try TestStore()
        _ = try Registry(path: store.path)
        let destination = store.directory.appendingPathComponent("precious.sqlite").path
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: destination))
        let error = #expect(throws: NBGWError.self) { try Registry.backup(storeAt: store.path, to: destination) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("already exists") == true)
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "keep me")
    }

    @Test("backing up or checking a missing store is STORE_UNAVAILABLE and creates nothing")
    func missingStore() throws {
        let store = try TestStore()
        let destination = store.directory.appendingPathComponent("copy.sqlite").path
        let backup = #expect(throws: NBGWError.self) { try Registry.backup(storeAt: store.path, to: destination) }
        #expect(backup?.code == .storeUnavailable)
        let check = #expect(throws: NBGWError.self) { try Registry.check(path: store.path) }
        #expect(check?.code == .storeUnavailable)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == [])
    }

    @Test("check finds a damaged store, and a backup of it fails and leaves no file behind")
    func damagedStore() throws {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        for index in 0..<3000 { try registry.directory.addAccount(name: "account-\(index)", role: .owner) }
        try DatabaseQueue(path: store.path).writeWithoutTransaction { db in
            _ = try db.checkpoint(.truncate)
        }
        #expect(try Registry.check(path: store.path).isSound)

        // Overwrite a page in the middle of the file: what a bad sector or a torn `cp` leaves.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store.path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2 / 4096 * 4096)
        handle.write(Data(repeating: 0x5A, count: 4096))
        try handle.close()

        let report = try Registry.check(path: store.path)
        #expect(!report.isSound)
        #expect(report.integrity != ["ok"])
        let destination = store.directory.appendingPathComponent("copy.sqlite").path
        let error = #expect(throws: NBGWError.self) { try Registry.backup(storeAt: store.path, to: destination) }
        #expect(error?.code == .storeUnavailable)
        #expect(!FileManager.default.fileExists(atPath: destination))
        let left = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter {
            $0.hasPrefix(".")
        }
        #expect(left == [])
    }

    @Test("check leaves the file as it was: an older store is reported older, not migrated")
    func checkDoesNotMigrate() throws {
        let store = try TestStore()
        _ = try Registry(path: store.path)
        try DatabaseQueue(path: store.path).write { db in
            // Every migration after v6, as a store an older nbgw left behind.
            try db.execute(
                sql: """
                    DELETE FROM grdb_migrations
                    WHERE rowid > (SELECT rowid FROM grdb_migrations WHERE identifier = 'v6-audit-origin')
                    """
            )
        }
        let report = try Registry.check(path: store.path)
        #expect(report.schema == .older)
        #expect(report.appliedMigrations.last == "v6-audit-origin")
        #expect(try Registry.check(path: store.path).appliedMigrations.last == "v6-audit-origin")
    }
}
