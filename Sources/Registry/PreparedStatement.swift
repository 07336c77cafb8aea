import CSQLite
import GRDB

/// A prepared statement on a GRDB connection, driven through the SQLite C API: for the CSV batch's
/// per-row statements and a single bind's transaction, where GRDB's argument arrays and row
/// objects cost more than the SQL itself. Values are always bound as parameters, never spliced
/// into SQL.
final class PreparedStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    let sql: String
    /// False for a statement GRDB owns (``cached(_:_:)``): GRDB finalizes it with its connection.
    private let owned: Bool

    /// SQLITE_TRANSIENT: SQLite copies bound text before the call returns. The C macro is not
    /// importable, so it is rebuilt from its documented value (-1).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    convenience init(_ db: Database, sql: String) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "connection is closed", sql: sql)
        }
        try self.init(connection: connection, sql: sql)
    }

    /// A statement on a connection nbgw opened itself, outside GRDB (``APIKeyReader``); finalized
    /// when the statement is released.
    init(connection: OpaquePointer, sql: String) throws {
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
        owned = true
    }

    private init(borrowing statement: Statement, connection: OpaquePointer, sql: String) {
        handle = statement.sqliteStatement
        self.connection = connection
        self.sql = sql
        owned = false
    }

    /// GRDB's cached statement for `sql` on `db` (prepared once per connection, kept and finalized
    /// by GRDB), driven through the C API. Reset before use; ``run()`` and ``finish()`` reset it
    /// after. Only for statements GRDB itself never needs to observe (no transaction control).
    static func cached(_ db: Database, _ sql: String) throws -> PreparedStatement {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "connection is closed", sql: sql)
        }
        let statement = try db.cachedStatement(sql: sql)
        let prepared = PreparedStatement(borrowing: statement, connection: connection, sql: sql)
        prepared.reset()
        return prepared
    }

    deinit {
        if owned {
            sqlite3_finalize(handle)
        } else {
            // Leave GRDB's statement as GRDB expects to find it.
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds `values` to parameters 1, 2, … in order.
    func bind(_ values: PreparedStatement.Value...) {
        bind(values)
    }

    private func bind(_ values: [PreparedStatement.Value]) {
        for (offset, value) in values.enumerated() {
            switch value {
            case .integer(let number): bind(Int32(offset + 1), number)
            case .text(let text): bind(Int32(offset + 1), text)
            }
        }
    }

    /// A parameter value for ``bind(_:)-(Value...)``.
    enum Value {
        case integer(Int64?)
        case text(String?)
    }

    /// ``bind(_:)-(Value...)``, returning the statement (for one-line queries).
    func binding(_ values: PreparedStatement.Value...) -> PreparedStatement {
        bind(values)
        return self
    }

    /// Steps once and resets: the first row's columns read by `read`, or nil when there is none.
    func first<T>(_ read: (PreparedStatement) -> T) throws -> T? {
        defer { reset() }
        return try step() ? read(self) : nil
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

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A BLOB (or TEXT) column's bytes; empty for NULL.
    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let blob = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: blob, count: count))
    }

    var changes: Int { Int(sqlite3_changes(connection)) }
}
