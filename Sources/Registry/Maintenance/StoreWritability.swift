/// What ``Registry/writability(wait:minimumFreeBytes:)`` found: whether a bind could be written to
/// the store now, and if not, why and what to do.
public struct StoreWritability: Sendable, Equatable {
    /// The verdict, also `/healthz`'s `storeReason` (docs/operations.md, "Metrics and health").
    public enum State: String, Sendable, Codable {
        /// The write lock was taken and released, and the filesystem has room.
        case writable
        /// Another writer held the store's write lock for longer than the probe waited.
        case locked
        /// SQLite opened the store read-only (file mode, owner, a read-only mount).
        case readOnly = "read_only"
        /// Less room on the store's filesystem than ``minimumFreeBytes``.
        case diskFull = "disk_full"
        /// Anything else SQLite or the system refused (``detail`` says what).
        case failed
    }

    public var state: State
    /// The store's file.
    public var path: String
    /// Bytes the daemon's user may still write on the store's filesystem (`statvfs(3)`'s `f_bavail
    /// × f_frsize`); nil when `statvfs` failed.
    public var freeBytes: UInt64?
    /// The room below which the store counts as full.
    public var minimumFreeBytes: UInt64
    /// How long the probe waited for another writer's lock.
    public var waited: Duration
    /// SQLite's or the system's own words, when the state is not ``State/writable``.
    public var detail: String?

    public init(
        state: State,
        path: String,
        freeBytes: UInt64?,
        minimumFreeBytes: UInt64,
        waited: Duration,
        detail: String? = nil
    ) {
        self.state = state
        self.path = path
        self.freeBytes = freeBytes
        self.minimumFreeBytes = minimumFreeBytes
        self.waited = waited
        self.detail = detail
    }

    public var isWritable: Bool { state == .writable }

    /// What is wrong, where and what to do; nil when the store is writable.
    public var problem: String? {
        switch state {
        case .writable:
            return nil
        case .locked:
            return "the store \(path) is locked by another writer (its write lock stayed taken for more than "
                + "\(waited.milliseconds) ms): binds wait and then fail; find the process holding it "
                + "(`fuser \(path)`: a long batch, a sqlite3 shell left in a transaction) and end its transaction"
        case .readOnly:
            return "the store \(path) is read-only (\(detail ?? "SQLite opened it read-only")): give the nbgw "
                + "user write access to the file, its -wal and -shm files and its directory, on a filesystem "
                + "mounted read-write"
        case .diskFull:
            return "the store \(path) is on a filesystem with \(Self.mebibytes(freeBytes ?? 0)) free, under the "
                + "\(Self.mebibytes(minimumFreeBytes)) nbgw keeps for the store's log: binds may fail with a disk I/O "
                + "error; free disk space (`df \(path)`)"
        case .failed:
            return "cannot take the store's write lock in \(path) (\(detail ?? "unknown error")); check the "
                + "file and its filesystem"
        }
    }

    static func mebibytes(_ bytes: UInt64) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
