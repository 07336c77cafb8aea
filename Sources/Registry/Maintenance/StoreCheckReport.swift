/// What ``Registry/check(path:)`` found in a store file: SQLite's own verdict on the file and where
/// its schema stands against this build's migrations.
public struct StoreCheckReport: Sendable, Equatable, Codable {
    /// How the store's schema compares with the migrations this build knows.
    public enum SchemaState: String, Sendable, Codable {
        /// Every migration this build knows has run, and no other.
        case current
        /// Some migrations have not run yet; the next nbgw or nbgwd that opens the store for writing
        /// runs them.
        case older
        /// The store has migrations this build does not know: it was written by a newer nbgw.
        case newer
    }

    /// The file checked.
    public var path: String
    /// `PRAGMA integrity_check`'s lines: exactly `["ok"]` for a sound file, else the problems
    /// (at most the first 100).
    public var integrity: [String]
    /// Rows whose foreign keys point at nothing (`PRAGMA foreign_key_check`).
    public var foreignKeyViolations: Int
    /// Migrations the store has run, oldest first.
    public var appliedMigrations: [String]
    /// See ``SchemaState``.
    public var schema: SchemaState
    /// The database's size: page count × page size (the `-wal` file not included).
    public var bytes: Int64
    /// Rows in the main tables, by table, for a quick look at what a backup holds.
    public var rows: [String: Int]

    /// True when SQLite finds nothing wrong with the file.
    public var isSound: Bool { integrity == ["ok"] && foreignKeyViolations == 0 }
}
