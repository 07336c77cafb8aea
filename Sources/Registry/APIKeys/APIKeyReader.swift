import CSQLite
import NBGWCore
import Synchronization

/// The ingest API's per-request key lookup (``Registry/APIKeys-swift.struct/verify(prefix:keyHash:)``) on a
/// read-only SQLite connection of its own, with its one statement prepared once.
///
/// Why not a reader of GRDB's pool: every request pays the lookup, and handing out a pool reader
/// (GRDB's `Pool.get`: a barrier queue, a semaphore and generic metadata resolved at run time) cost
/// more than the query itself: 13 % of the ingest server's CPU at half its bind peak (perf). Here a
/// lookup takes a lock, steps one statement and resets it. There is no cache in front of it: each
/// lookup reads what is committed at that moment, so a key revoked by another process (`nbgw
/// apikeys revoke`) is refused at its next request.
///
/// The connection is opened at the first lookup and closed with the registry. One statement is
/// atomic by itself, so no explicit transaction: stepping it opens SQLite's read transaction and
/// resetting it ends it (it never holds up a checkpoint).
final class APIKeyReader: Sendable {
    private final class Connection {
        let handle: OpaquePointer
        let lookup: PreparedStatement

        init(handle: OpaquePointer, lookup: PreparedStatement) {
            self.handle = handle
            self.lookup = lookup
        }

        deinit {
            // close_v2, not close: `lookup` is finalized after this body runs, and close_v2 defers
            // the actual close until then.
            sqlite3_close_v2(handle)
        }
    }

    private let path: String
    private let busyTimeout: Duration
    private let connection = Mutex<Connection?>(nil)

    init(path: String, busyTimeout: Duration) {
        self.path = path
        self.busyTimeout = busyTimeout
    }

    /// The key whose prefix is `prefix` and its stored digest, or nil when there is none.
    func key(prefix: String) throws(NBGWError) -> (key: Registry.APIKey, hash: [UInt8])? {
        let found: Result<(key: Registry.APIKey, hash: [UInt8])?, NBGWError> = connection.withLock { connection in
            do {
                let open = try connection ?? open()
                connection = open
                let found = try open.lookup.binding(.text(prefix)).first { row in
                    (Registry.apiKey(row), row.bytes(Registry.apiKeyColumnCount))
                }
                return .success(found)
            } catch let error as NBGWError {
                return .failure(error)
            } catch {
                return .failure(Registry.storeError(error, path: path))
            }
        }
        return try found.get()
    }

    private func open() throws -> Connection {
        var handle: OpaquePointer?
        // NOMUTEX: every use is under `connection`'s lock, so SQLite's own per-call mutex would only be overhead.
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(rc)"
            sqlite3_close_v2(handle)
            throw NBGWError(
                .storeUnavailable,
                "cannot open a connection to the store \(path) to check API keys: \(reason); check its permissions"
            )
        }
        // A WAL reader can meet SQLITE_BUSY for a moment (another process recovering the log): wait as
        // long as the store's other connections do.
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeout.milliseconds))
        do {
            let lookup = try PreparedStatement(
                connection: handle,
                sql: "SELECT \(Registry.apiKeyColumns), key_hash FROM api_key WHERE prefix = ?"
            )
            return Connection(handle: handle, lookup: lookup)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }
}
