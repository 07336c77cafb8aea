import CSQLite
import GRDB

/// A prepared statement on a GRDB connection, driven through the SQLite C API: for the CSV batch's
/// per-row statements, where GRDB's argument arrays and row objects cost more than the SQL itself.
/// Values are always bound as parameters, never spliced into SQL.
final class PreparedStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    let sql: String

    /// SQLITE_TRANSIENT: SQLite copies bound text before the call returns. The C macro is not
    /// importable, so it is rebuilt from its documented value (-1).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ db: Database, sql: String) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "connection is closed", sql: sql)
        }
        self.connection = connection
        self.sql = sql
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: rc),
                message: String(cString: sqlite3_errmsg(connection)),
                sql: sql
            )
        }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: String?) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        var text = value
        text.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), PreparedStatement.transient)
            }
        }
    }

    /// Steps once: true when a row is available, false when done; throws SQLite's error otherwise.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: message, sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws {
        defer { reset() }
        while try step() {}
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    var changes: Int { Int(sqlite3_changes(connection)) }
}
