import CSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Registry {
    /// How long ``writability(wait:minimumFreeBytes:)`` waits for another writer's lock.
    ///
    /// Why 200 ms: the store's own writers hold the lock for milliseconds (a bind's transaction, a
    /// CSV chunk's commit: "well under a second", ``init(path:clock:busyTimeout:walCheckpointing:access:)``),
    /// so a probe that waits this long gets the lock between them, while a health check asked every
    /// second still answers within its own deadline. A writer that keeps the lock longer than this
    /// makes binds wait: that is what the probe reports.
    public static let writabilityProbeWait: Duration = .milliseconds(200)

    /// The room the store's filesystem must keep free for it to count as writable.
    ///
    /// Why 64 MiB: with background checkpoints (the daemon's) the write-ahead log grows to about
    /// 16384 pages of 4 KiB before it restarts from its beginning (``BackgroundCheckpointer``), so a
    /// filesystem with less room than that can fail a bind with "disk I/O error" although the
    /// database file itself has room; on a full 2 MiB filesystem every write failed so (security
    /// review F15) while a read still worked.
    public static let minimumFreeBytes: UInt64 = 64 << 20

    /// Whether a bind could be written now: takes the write lock (`BEGIN IMMEDIATE`, then `ROLLBACK`:
    /// nothing is written) on a connection of its own that waits at most `wait` for another
    /// writer, and asks the filesystem for its free room (`statvfs(3)`).
    ///
    /// A read alone does not tell: a store on a full disk, or locked by a writer that does not let
    /// go, still answers reads. Opened read-write without create: a removed store is not made anew.
    /// Cheap (no page is written), but not free: callers asked often (a health check) keep the
    /// answer for a moment.
    public func writability(
        wait: Duration = Registry.writabilityProbeWait,
        minimumFreeBytes: UInt64 = Registry.minimumFreeBytes
    ) -> StoreWritability {
        Registry.writability(ofStoreAt: path, wait: wait, minimumFreeBytes: minimumFreeBytes)
    }

    /// ``writability(wait:minimumFreeBytes:)`` of the store at `path`, without opening it as a
    /// registry (no migration, no lock file: it works on a store that can no longer be opened so).
    public static func writability(
        ofStoreAt path: String,
        wait: Duration = Registry.writabilityProbeWait,
        minimumFreeBytes: UInt64 = Registry.minimumFreeBytes
    ) -> StoreWritability {
        func verdict(_ state: StoreWritability.State, free: UInt64?, _ detail: String? = nil) -> StoreWritability {
            StoreWritability(
                state: state,
                path: path,
                freeBytes: free,
                minimumFreeBytes: minimumFreeBytes,
                waited: wait,
                detail: detail
            )
        }
        var info = statvfs()
        let free: UInt64? = statvfs(path, &info) == 0 ? UInt64(info.f_bavail) * UInt64(info.f_frsize) : nil

        var handle: OpaquePointer?
        let opened = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close_v2(handle) }
        guard opened == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(opened))
            return verdict(.failed, free: free, reason)
        }
        // A file the process may not write is opened read-only without an error: ask.
        if sqlite3_db_readonly(handle, "main") == 1 {
            return verdict(.readOnly, free: free, "SQLite opened the file read-only")
        }
        sqlite3_busy_timeout(handle, Int32(clamping: wait.milliseconds))
        let began = sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil)
        let message = String(cString: sqlite3_errmsg(handle))
        if began == SQLITE_OK { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
        switch began & 0xFF {
        case SQLITE_OK: break
        case SQLITE_BUSY, SQLITE_LOCKED: return verdict(.locked, free: free, message)
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN: return verdict(.readOnly, free: free, message)
        case SQLITE_FULL: return verdict(.diskFull, free: free, message)
        default: return verdict(.failed, free: free, message)
        }
        if let free, free < minimumFreeBytes { return verdict(.diskFull, free: free) }
        return verdict(.writable, free: free)
    }
}
