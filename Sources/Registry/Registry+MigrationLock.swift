import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Registry {
    /// Runs `body` (opening the pool and migrating) while holding an exclusive `flock` on the store's directory.
    ///
    /// Why: two processes opening the same new store at once (the daemon starting while an operator
    /// runs `nbgw modems`) both saw no migration applied and both ran `v1-foundation`; the second
    /// failed with "table account already exists". SQLite's own locks cannot serialise GRDB's
    /// check-then-migrate sequence across processes, so the check and the migrations run under one
    /// lock, and so does opening, whose switch of a new file to WAL mode can fail at once with
    /// SQLITE_BUSY (no busy handler) while another opener does the same. The directory is locked rather than the database file because opening and closing
    /// another descriptor of the database file would drop SQLite's POSIX locks in this process.
    /// The lock is held only for the migrations (milliseconds once the schema is current).
    static func whileHoldingMigrationLock<T>(for path: String, _ body: () throws -> T) throws -> T {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            // No lock possible (an unusual directory): migrate anyway, as before.
            return try body()
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { return try body() }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
