import Foundation
import GRDB
import Pairing

#if canImport(Glibc)
import Glibc
#endif

/// nbgw's local store: one SQLite file (WAL, through GRDB's `DatabasePool`) shared by the CLI, the
/// daemon and the ingest API. Every invariant the schema can hold is in the schema
/// (see ``Registry/migrator``); the Swift code checks first only to give clearer errors.
public final class Registry: Sendable {
    /// The database file.
    public let path: String
    let pool: DatabasePool
    let clock: any WallClock
    /// How long a writer waits for another process's write lock before giving up.
    let busyTimeout: Duration

    /// Opens (creating with mode 0600 if needed) and migrates the store at `path`.
    ///
    /// - Parameter busyTimeout: how long to wait for another process holding the write lock.
    ///   Why 10 s: batch imports commit in chunks that take well under a second, so a
    ///   concurrent CLI command waits, rather than failing, behind a running batch.
    public init(
        path: String,
        clock: any WallClock = SystemWallClock(),
        busyTimeout: Duration = .seconds(10)
    )
        throws(NBGWError)
    {
        self.path = path
        self.clock = clock
        self.busyTimeout = busyTimeout
        do {
            try Registry.createFileIfMissing(path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(busyTimeout.timeInterval)
            configuration.foreignKeysEnabled = true
            configuration.label = "nbgw.registry"
            configuration.prepareDatabase { db in
                // NORMAL is durable in WAL mode across application crashes; only an OS crash or
                // power loss can roll back the last transactions, never corrupt the file.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            self.pool = try DatabasePool(path: path, configuration: configuration)
            try Registry.migrator.migrate(pool)
        } catch let error as NBGWError {
            throw error
        } catch {
            throw Registry.storeError(error, path: path)
        }
    }

    /// Creates the database file with mode 0600 (and its directory with 0700) before SQLite
    /// opens it, so the file is never readable by others, not even for a moment. SQLite gives
    /// the `-wal` and `-shm` files the same mode as the database file.
    static func createFileIfMissing(_ path: String) throws(NBGWError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw NBGWError(
                    .storeUnavailable,
                    "cannot create the store's directory \(directory): \(error.localizedDescription); "
                        + "pass --db PATH or set NBGW_DB to a writable location"
                )
            }
        }
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw NBGWError(
                .storeUnavailable,
                "cannot open the store \(path): \(reason); pass --db PATH or set NBGW_DB to a writable location"
            )
        }
        close(fd)
    }

    /// Milliseconds since the Unix epoch: the unit of every timestamp column.
    func nowMillis() -> Int64 {
        Int64((clock.now().timeIntervalSince1970 * 1000).rounded())
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
