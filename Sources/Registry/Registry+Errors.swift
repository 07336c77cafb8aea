import GRDB
import NBGWCore

extension Registry {
    /// Maps a database failure to an operator-facing error. Trigger aborts carry an ``ErrorCode``
    /// raw value as their message, so the schema's own checks surface with the right code.
    static func storeError(_ error: any Error, path: String) -> NBGWError {
        if let error = error as? NBGWError { return error }
        guard let databaseError = error as? DatabaseError else {
            return NBGWError(.internalError, "store \(path): \(error)")
        }
        if let message = databaseError.message, let code = ErrorCode(rawValue: message) {
            return NBGWError(code, "the store refused the change (\(message)) in \(path)")
        }
        switch databaseError.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return NBGWError(
                .storeUnavailable,
                "the store \(path) stayed locked by another writer; wait for it (a running batch?) and retry"
            )
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            if let problem = accessProblem(path: path) { return problem }
            return NBGWError(
                .storeUnavailable,
                "cannot write the store \(path) (\(databaseError.message ?? "read-only")); check its permissions "
                    + "or pass --db PATH"
            )
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return NBGWError(
                .storeUnavailable,
                "\(path) is not an nbgw store or is damaged; restore it from a backup or pass another --db PATH"
            )
        case .SQLITE_FULL, .SQLITE_IOERR:
            return NBGWError(
                .storeUnavailable,
                "I/O error on the store \(path) (\(databaseError.message ?? "disk full?")); free disk space and retry"
            )
        default:
            return NBGWError(.internalError, "store \(path): \(databaseError.message ?? "\(databaseError)")")
        }
    }

    /// Runs `body` in an IMMEDIATE write transaction (the write lock is taken up front, so two
    /// processes never deadlock upgrading a read lock) and maps failures to ``NBGWError``.
    func write<T>(_ body: (Database) throws -> T) throws(NBGWError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw Registry.storeError(error, path: path)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(NBGWError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw Registry.storeError(error, path: path)
        }
    }
}
