import CSQLite
import CSQLiteSettings
import Foundation
import GRDB
import NBGWCore
import Synchronization

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
    /// Runs the background checkpoints once ``checkpointInBackground(every:)`` (or the
    /// `walCheckpointing` option) asked for them.
    let checkpointer: BackgroundCheckpointer
    /// Binds waiting to be committed together
    /// (``Bindings-swift.struct/bindInGroup(_:timeout:queueForCloud:)``).
    let bindQueue = BindQueue()
    /// The API key lookup's own connection (``APIKeys-swift.struct/verify(prefix:keyHash:)``).
    let keyReader: APIKeyReader
    /// The key the modules' credentials are sealed under, or why this process has none
    /// (``Directory-swift.struct/moduleSecret(imei:)``).
    public let secretsKey: SecretsKeyAccess

    /// sqlite3_config's result for turning SQLite's memory statistics off, applied when the program
    /// loaded (CSQLiteSettings says why then and why off): SQLITE_OK, or SQLITE_MISUSE when SQLite
    /// had been initialized before (then only slower).
    static var memoryStatisticsOff: Int32 { nbgw_sqlite3_memory_statistics_result() }

    /// How the write-ahead log gets copied back into the database file (a checkpoint, which is
    /// where SQLite fsyncs in WAL mode with `synchronous = NORMAL`).
    public enum WALCheckpointing: Sendable, Equatable {
        /// SQLite's default: the writer whose commit takes the log past 1000 pages checkpoints, inside
        /// that commit. Right for short-lived commands (the CLI, batches): nothing runs in between.
        case automatic
        /// Auto-checkpoint off on the writer; a background thread runs PASSIVE checkpoints on a
        /// connection of its own every `interval` (they never block readers or the writer), and once
        /// the log is past 64 MiB one short checkpoint on the writer lets it restart. Right for
        /// services: requests almost never wait for a checkpoint's fsync.
        case background(every: Duration)
    }

    /// Opens (creating it as `access` allows) and migrates the store at `path`.
    ///
    /// - Parameters:
    ///   - busyTimeout: how long to wait for another process holding the write lock.
    ///     Why 10 s: batch imports commit in chunks that take well under a second, so a
    ///     concurrent CLI command waits, rather than failing, behind a running batch.
    ///   - walCheckpointing: `.automatic` (the default, the CLI's) or `.background(every:)` (services).
    ///   - access: create a missing store owner-only (the default), only open an existing one (the
    ///     CLI's read commands: `STORE_NOT_FOUND`, `PERMISSION_DENIED`), or share it with a group (the
    ///     daemon): ``StoreFileAccess``.
    ///   - secretsKey: the key the modules' credentials are sealed under (the daemon's), or why this
    ///     process has none: then everything but those credentials works, and reading or writing one
    ///     is `SECRETS_KEY_MISSING` (docs/operations.md, "Module credentials").
    public init(
        path: String,
        clock: any WallClock = SystemWallClock(),
        busyTimeout: Duration = .seconds(10),
        walCheckpointing: WALCheckpointing = .automatic,
        access: StoreFileAccess = .ownerOnly,
        secretsKey: SecretsKeyAccess = .none
    )
        throws(NBGWError)
    {
        // References CSQLiteSettings, so no linker leaves out the object that applies the setting.
        _ = Registry.memoryStatisticsOff
        self.path = path
        self.clock = clock
        self.busyTimeout = busyTimeout
        self.secretsKey = secretsKey
        self.checkpointer = BackgroundCheckpointer(path: path)
        self.keyReader = APIKeyReader(path: path, busyTimeout: busyTimeout)
        do {
            try Registry.prepareFiles(path, access: access)
            var configuration = Configuration()
            configuration.busyMode = .timeout(busyTimeout.timeInterval)
            configuration.foreignKeysEnabled = true
            configuration.label = "nbgw.registry"
            configuration.prepareDatabase { db in
                // NORMAL is durable in WAL mode across application crashes; only an OS crash or
                // power loss can roll back the last transactions, never corrupt the file.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            // Opening (which switches a new file to WAL) and migrating happen under one lock, so
            // concurrent first openers of a new store neither race on the schema nor on WAL mode.
            self.pool = try Registry.whileHoldingMigrationLock(for: path) {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try Registry.migrator.migrate(pool)
                try pool.writeWithoutTransaction { db in try Registry.keepStatementJournalsInMemory(db) }
                return pool
            }
        } catch let error as NBGWError {
            throw error
        } catch {
            throw Registry.storeError(error, path: path)
        }
        if case .background(let interval) = walCheckpointing {
            try checkpointInBackground(every: interval)
        }
    }

    /// Keeps the writer's statement journals (the undo log of a savepoint or of one statement inside
    /// a transaction) in memory: `temp_store = MEMORY` on the writer connection only, set after the
    /// migrations ran.
    ///
    /// Why: a group commit (``Bindings-swift.struct/bindInGroup(_:timeout:queueForCloud:)``) opens
    /// one savepoint per bind, and SQLite keeps a savepoint's journal in memory only up to 64 KiB
    /// by default; past that it creates a temporary file (created and unlinked in /var/tmp), writes
    /// every further journaled page to it and deletes it at the commit. At full ingest load one
    /// group in ten spilled: about 1 100 temporary files created and deleted in 5 s, and 35 % of
    /// the server's pwrite calls (8.5 → 5.2 per bind without the spill; `perf stat` on syscalls).
    /// In memory a journal is emptied at each bind's RELEASE, so it holds one bind's pages (about
    /// 50 KiB), not a group's. Readers keep the default: a large sort there may still spill to a
    /// temporary file.
    ///
    /// Why not a larger spill size instead (SQLITE_CONFIG_STMTJRNL_SPILL, one chunk per journal
    /// rather than 1 KiB chunks, 3 % less CPU per bind measured): with 200 000 bytes or more, SQLite
    /// 3.40.1 fails a DROP TABLE of a large table with SQLITE_FULL (found by migration v7).
    static func keepStatementJournalsInMemory(_ db: Database) throws {
        try db.execute(sql: "PRAGMA temp_store = MEMORY")
    }

    /// Switches this store to background checkpoints (``WALCheckpointing/background(every:)``) for
    /// the rest of its life: the writer stops checkpointing inside commits, and a background thread
    /// runs a PASSIVE checkpoint every `interval` on its own connection. Idempotent (a second call
    /// keeps the first interval). The ingest service calls it for the registry it serves; other
    /// processes using the same file keep their own setting.
    public func checkpointInBackground(every interval: Duration) throws(NBGWError) {
        do {
            let pool = self.pool
            let started = try checkpointer.start(every: interval) {
                // On the writer, between two of its transactions: nothing commits meanwhile, so this
                // copies the last frames and the next write restarts the log from its beginning.
                pool.writeWithoutTransaction { db in
                    _ = BackgroundCheckpointer.passive(db.sqliteConnection)
                }
            }
            guard started else { return }
            try pool.writeWithoutTransaction { db in
                // The writer's automatic checkpoint is what made a commit now and then fsync twice.
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            }
        } catch let error as NBGWError {
            throw error
        } catch {
            throw Registry.storeError(error, path: path)
        }
    }

    /// True once ``checkpointInBackground(every:)`` is in effect.
    public var checkpointsInBackground: Bool { checkpointer.isRunning }

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

/// The background half of ``Registry/WALCheckpointing/background(every:)``: a timer on a private
/// queue running `sqlite3_wal_checkpoint_v2(PASSIVE)` on a connection of its own. PASSIVE copies
/// what it can without waiting for readers or writers, so it never holds up a request, and it
/// does the expensive part (copying pages, syncing the database file) off the writer.
///
/// The log only restarts from its beginning when a write begins right after a checkpoint that
/// copied every frame, which a background checkpoint never sees under a steady stream of commits.
/// So once the log is over ``restartFrames`` after a background pass, one short PASSIVE checkpoint
/// runs on the writer itself (`restartPoint`): it copies only what was committed since, and the
/// next write restarts the log. That bounds the log at about `restartFrames` pages.
final class BackgroundCheckpointer: Sendable {
    /// Why 16384 frames (64 MiB with 4 KiB pages): a bind commits about 13 pages, so at 1500 binds/s
    /// this is one short checkpoint on the writer (the frames of the last tick, and two fsyncs:
    /// a few milliseconds) every 0.8 s, instead of SQLite's automatic one (1000 pages, the whole
    /// copy and both fsyncs on the writer) every 75 binds. Halving it doubles how often binds wait
    /// for those fsyncs; doubling it only makes the log file bigger.
    static let defaultRestartFrames = 16384

    private let path: String
    let restartFrames: Int
    private let queue = DispatchQueue(label: "nbgw.registry.checkpoint", qos: .utility)
    /// What the timer needs, set once by ``start(every:restartPoint:)``; the connection and the
    /// restart point are used only on `queue` once started.
    private struct Running {
        var timer: any DispatchSourceTimer
        var connection: OpaquePointer
        var restartPoint: @Sendable () -> Void
    }
    private let running = Mutex<Running?>(nil)

    init(path: String, restartFrames: Int = BackgroundCheckpointer.defaultRestartFrames) {
        self.path = path
        self.restartFrames = restartFrames
    }

    var isRunning: Bool { running.withLock { $0 != nil } }

    /// Starts the timer; false when it already runs.
    ///
    /// - Parameter restartPoint: runs a checkpoint on the writer (between two of its transactions);
    ///   called on the checkpointer's queue when the log is over ``restartFrames`` after a pass.
    func start(
        every interval: Duration,
        restartPoint: @escaping @Sendable () -> Void
    ) throws(NBGWError) -> Bool {
        try running.withLock { (running) throws(NBGWError) -> Bool in
            guard running == nil else { return false }
            running = try open(every: interval, restartPoint: restartPoint)
            return true
        }
    }

    /// The connection and the started timer; on the caller's lock.
    private func open(
        every interval: Duration,
        restartPoint: @escaping @Sendable () -> Void
    ) throws(NBGWError) -> Running {
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil)
        guard rc == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(rc)"
            sqlite3_close(handle)
            throw NBGWError(
                .storeUnavailable,
                "cannot open a checkpoint connection to the store \(path): \(reason); check its permissions"
            )
        }
        // A connection only learns the file is in WAL mode, and opens the log, at its first read; a
        // checkpoint before that reports -1 frames and copies nothing.
        guard sqlite3_exec(handle, "SELECT count(*) FROM sqlite_master", nil, nil, nil) == SQLITE_OK else {
            let reason = String(cString: sqlite3_errmsg(handle))
            sqlite3_close(handle)
            throw NBGWError(.storeUnavailable, "cannot read the store \(path) to checkpoint it: \(reason)")
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = max(1_000_000, Int(clamping: interval.milliseconds) * 1_000_000)
        // Leeway: a tenth of the interval; the exact moment does not matter, only that it keeps up.
        timer.schedule(
            deadline: .now() + .nanoseconds(nanoseconds),
            repeating: .nanoseconds(nanoseconds),
            leeway: .nanoseconds(nanoseconds / 10)
        )
        // Weak: the timer belongs to this object; its deinit cancels the timer.
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.setCancelHandler {
            // A last passive checkpoint so a stopped service leaves a short log behind.
            _ = BackgroundCheckpointer.passive(handle)
            sqlite3_close_v2(handle)
        }
        timer.resume()
        return Running(timer: timer, connection: handle, restartPoint: restartPoint)
    }

    /// One timer tick, on `queue`: a background pass, then the writer-side restart point when the
    /// log is still over ``restartFrames``. Returns the pass (nil: not running, or SQLITE_BUSY
    /// because another checkpoint runs, e.g. another process's; the next tick tries again).
    @discardableResult
    func tick() -> (logFrames: Int, checkpointed: Int)? {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let (handle, restartPoint) = running.withLock({ $0.map { ($0.connection, $0.restartPoint) } }),
            let pass = BackgroundCheckpointer.passive(handle)
        else { return nil }
        if pass.logFrames >= restartFrames { restartPoint() }
        return pass
    }

    /// Runs ``tick()`` now, on the checkpointer's queue (tests; the timer does it every interval).
    func tickNow() -> (logFrames: Int, checkpointed: Int)? {
        queue.sync { tick() }
    }

    /// A PASSIVE checkpoint on `handle`: (frames in the log, frames copied back), or nil on failure.
    static func passive(_ handle: OpaquePointer?) -> (logFrames: Int, checkpointed: Int)? {
        var log: Int32 = 0
        var done: Int32 = 0
        guard sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &done) == SQLITE_OK else {
            return nil
        }
        return (Int(log), Int(done))
    }

    deinit {
        // The cancel handler runs on `queue` after any tick in progress, then closes the connection.
        running.withLock { $0?.timer.cancel() }
    }
}
