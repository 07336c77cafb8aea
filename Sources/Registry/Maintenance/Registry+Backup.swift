import Foundation
import GRDB
import NBGWCore

#if canImport(Glibc)
import Glibc
#endif

extension Registry {
    /// The tables ``check(path:)`` counts rows of (those that exist in the store checked), in the
    /// order a summary lists them. `audit_trail` is the view of the whole trail (migration v12):
    /// the audit log plus the CSV batches' binds kept with their jobs.
    public static let countedTables = [
        "account", "home", "device", "binding", "pairing_token", "modem", "api_key", "audit_log", "audit_trail",
    ]

    /// Copies the store at `path` to a new file `destination` while other processes keep using it
    /// (the daemon, the ingest API, a running batch), then checks the copy.
    ///
    /// The copy goes through SQLite's online backup API (`sqlite3_backup_*`, through GRDB's
    /// `backup(to:)`) in one step inside one read transaction, so it is the store as of one
    /// commit: a WAL reader never blocks the writers, and they never block it. Never `cp` a live
    /// WAL store: the file alone can miss commits still in its `-wal` file, or catch a checkpoint
    /// half done.
    ///
    /// The copy is written to a temporary file (mode 0600) beside `destination`, checked with
    /// ``check(path:)`` (`PRAGMA integrity_check`, foreign keys), and only then linked to
    /// `destination`: a failed or interrupted backup leaves no file that looks like a backup.
    /// The store itself is opened read-only and neither created nor migrated.
    ///
    /// - Throws: ``ErrorCode/invalidArgument`` when `destination` exists or is the store itself;
    ///   ``ErrorCode/storeUnavailable`` when the store is missing, unreadable or damaged, or the copy
    ///   cannot be written or fails its check (the message says which).
    public static func backup(storeAt path: String, to destination: String) throws(NBGWError) -> StoreBackupReport {
        let destination = absolute(destination)
        guard FileManager.default.fileExists(atPath: path) else {
            throw NBGWError(.storeUnavailable, "no store at \(path): nothing to back up; pass --db PATH")
        }
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: destination)) != nil
            || FileManager.default.fileExists(atPath: destination)
        {
            throw NBGWError(
                .invalidArgument,
                "\(destination) already exists: a backup never overwrites a file; choose a new name or remove it"
            )
        }
        let directory = (destination as NSString).deletingLastPathComponent
        let partial = directory + "/." + (destination as NSString).lastPathComponent + ".partial-\(getpid())"
        do throws(NBGWError) {
            try createExclusively(partial, for: destination)
            var pages = 0
            do {
                let source = try openReadOnly(path)
                let copy = try DatabaseQueue(path: partial)
                // One step (-1: every page) inside the source's read transaction: a consistent snapshot.
                try source.backup(to: copy, pagesPerStep: -1) { progress in
                    pages = progress.totalPageCount
                }
                try copy.close()
                try source.close()
            } catch {
                throw storeError(error, path: path)
            }
            let check = try Registry.check(path: partial)
            guard check.isSound else {
                throw NBGWError(
                    .storeUnavailable,
                    "the copy of \(path) failed its check (\(problems(check))); the store itself may be damaged: "
                        + "run `nbgw store check`, and restore from an earlier backup if it fails too"
                )
            }
            try syncFile(partial)
            guard link(partial, destination) == 0 else {
                let reason = String(cString: strerror(errno))
                throw NBGWError(.storeUnavailable, "cannot create \(destination): \(reason); choose another path")
            }
            // The name stays with the linked file; the temporary name and the empty -wal/-shm files the
            // read-only check left go.
            removeCopy(partial)
            var report = StoreBackupReport(source: path, destination: destination, pages: pages, check: check)
            report.check.path = destination
            return report
        } catch {
            removeCopy(partial)
            throw error
        }
    }

    /// Checks a store file without changing it: `PRAGMA integrity_check` (every page, index and
    /// constraint SQLite can verify), `PRAGMA foreign_key_check`, and which migrations it has run.
    /// The file is opened read-only and never created or migrated, so a backup can be checked as
    /// it is.
    ///
    /// - Throws: ``ErrorCode/storeUnavailable`` when there is no file, it cannot be read, or it is
    ///   not an SQLite database. A damaged database is not an error here: the report says what is
    ///   wrong (``StoreCheckReport/isSound``).
    public static func check(path: String) throws(NBGWError) -> StoreCheckReport {
        guard FileManager.default.fileExists(atPath: path) else {
            throw NBGWError(.storeUnavailable, "no store at \(path); pass --db PATH")
        }
        do {
            let queue = try openReadOnly(path)
            defer { try? queue.close() }
            return try queue.read { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check(100)")
                let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
                let applied =
                    try db.tableExists("grdb_migrations")
                    ? String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") : []
                let known = migrator.migrations
                let schema: StoreCheckReport.SchemaState =
                    !Set(applied).isSubset(of: known) ? .newer : (Set(applied) == Set(known) ? .current : .older)
                let pageCount = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                var rows: [String: Int] = [:]
                for table in countedTables where try db.tableExists(table) || db.viewExists(table) {
                    // A name from the fixed list above, never from input: nothing to bind.
                    rows[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
                }
                return StoreCheckReport(
                    path: path,
                    integrity: integrity,
                    foreignKeyViolations: foreignKeys,
                    appliedMigrations: applied,
                    schema: schema,
                    bytes: pageCount * pageSize,
                    rows: rows
                )
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            // Too damaged for integrity_check to run at all.
            return StoreCheckReport(
                path: path,
                integrity: [error.message ?? "database disk image is malformed"],
                foreignKeyViolations: 0,
                appliedMigrations: [],
                schema: .older,
                bytes: 0,
                rows: [:]
            )
        } catch {
            throw storeError(error, path: path)
        }
    }

    /// A short summary of what a failed check found.
    static func problems(_ check: StoreCheckReport) -> String {
        var parts: [String] = []
        if check.integrity != ["ok"] {
            parts.append("integrity_check: " + check.integrity.prefix(3).joined(separator: "; "))
        }
        if check.foreignKeyViolations > 0 { parts.append("\(check.foreignKeyViolations) broken foreign keys") }
        return parts.joined(separator: ", ")
    }

    /// A read-only connection: never creates the file, never writes it (in WAL mode SQLite may still
    /// create the `-shm` index beside it, as every reader does).
    static func openReadOnly(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        // Reads wait for a writer only while a WAL file is being recovered; 10 s as for writes.
        configuration.busyMode = .timeout(10)
        configuration.label = "nbgw.maintenance"
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Creates `path` with mode 0600, failing if anything is there.
    static func createExclusively(_ path: String, for destination: String) throws(NBGWError) {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw NBGWError(
                .storeUnavailable,
                "cannot write the backup beside \(destination) (\(path): \(reason)); choose a writable directory"
            )
        }
        close(fd)
    }

    /// Flushes a finished copy to disk before it gets its name.
    static func syncFile(_ path: String) throws(NBGWError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw NBGWError(.storeUnavailable, "cannot flush the backup \(path): \(reason)")
        }
        close(fd)
    }

    static func removeCopy(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
