import CSQLite
import GRDB
import Synchronization

/// Keeps a batch's commits free of WAL checkpoints: while a batch runs, its writer connection does
/// not checkpoint inside commits (`wal_autocheckpoint = 0`); a ``BackgroundCheckpointer`` of the
/// batch's own copies the log back into the database file on another thread, and the writer only
/// runs the short "restart point" checkpoint (what was committed since the last background pass)
/// between two chunks, when the log has grown past the checkpointer's limit, and once after the
/// last chunk so the batch leaves a short log behind.
///
/// Why: with SQLite's automatic checkpoint, the chunk whose commit takes the log past 1000 pages
/// copies the whole log and fsyncs twice before the next chunk can begin. On the 1 M-row benchmark
/// that was 115 fsyncs and 0.39 s of the writer waiting in them (under strace), plus the copying,
/// on the one thread every other stage of the pipelined batch waits for. On this machine's virtual
/// disk (about 3 ms per fsync) the batch's time changed by less than the noise between runs (5.20
/// against 5.15 s, median of 4 alternating runs); the saving grows with the time an fsync takes.
/// With this, the log peaks at about 50 MB in that batch (the checkpointer's limit is 64 MiB)
/// instead of 10.
///
/// A dry run commits nothing and has none.
final class BatchCheckpoints: Sendable {
    private let background: BackgroundCheckpointer
    /// Set by the background pass when the log is still over its limit; the writer acts on it
    /// after its next commit.
    private let restartWanted = Mutex(false)
    /// The registry's own setting for the writer, restored when the batch ends.
    private let restoreAutomatic: Bool

    /// How often the background pass runs: every few chunks (a million-row batch commits a chunk of
    /// 2,500 rows every 10–20 ms on this machine), so no pass has much to copy.
    static let interval: Duration = .milliseconds(50)

    /// Starts the background pass and turns the writer's automatic checkpoint off.
    init(registry: Registry, writer db: Database) throws {
        background = BackgroundCheckpointer(path: registry.path)
        restoreAutomatic = !registry.checkpointsInBackground
        _ = try background.start(every: BatchCheckpoints.interval) { [weak self] in
            self?.restartWanted.withLock { $0 = true }
        }
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
    }

    /// After a chunk's commit, on the writer: the restart point when the background pass asked for
    /// it, or when this was the batch's last chunk.
    func afterCommit(_ db: Database, last: Bool) {
        let wanted = restartWanted.withLock { wanted in
            defer { wanted = false }
            return wanted
        }
        if wanted || last {
            _ = BackgroundCheckpointer.passive(db.sqliteConnection)
        }
    }

    /// When the batch ends, on the writer: gives the writer its automatic checkpoint back (unless
    /// the registry checkpoints in the background for a service). The background pass stops when
    /// this object goes.
    func finish(_ db: Database) {
        if restoreAutomatic {
            // SQLite's default.
            try? db.execute(sql: "PRAGMA wal_autocheckpoint = 1000")
        }
    }
}
