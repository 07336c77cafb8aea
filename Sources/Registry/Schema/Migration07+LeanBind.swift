import GRDB

extension Registry {
    /// Migration v7: two B-trees fewer written per bind. Frozen once shipped.
    ///
    /// - `audit_log` without AUTOINCREMENT. AUTOINCREMENT only differs from a plain rowid when the
    ///   row with the largest id is deleted (it never reuses that id); audit rows are never deleted
    ///   (a trigger refuses it), so new rows get the same ids as before. What it cost: every insert
    ///   read and rewrote the table's `sqlite_sequence` row, a page in every commit.
    /// - `binding.token_id` unique through a partial index (`WHERE token_id IS NOT NULL`) instead of
    ///   a UNIQUE column constraint, whose index held an entry for every binding, NULL ones
    ///   included: most binds have no token (CSV rows, ingest API and CLI binds without one).
    ///   Tokens stay single-use all the same; a lookup by token (`token_id = ?`) uses the index.
    ///
    /// Measured on a copy of a benchmark store, the bind's statements in a C loop: 13.1 → 11.2 µs per
    /// bind, a group's commit of 7 binds 36 → 27 µs (docs/ingest.md, "2026-11-26, later").
    ///
    /// SQLite cannot drop a column constraint or AUTOINCREMENT, so each table is rebuilt (SQLite's
    /// "12 steps"): its named indexes and triggers are read from `sqlite_schema`, the new table is
    /// created, filled, the old one dropped, the new one renamed, and the saved indexes and triggers
    /// are created again from their own text: whatever v1-v6 made, unchanged. GRDB runs a migration
    /// with foreign keys off and checks them all after it. `legacy_alter_table` is on for the
    /// renames: otherwise SQLite re-parses every trigger, and `account_role_change` (on `account`)
    /// names `binding`, which does not exist between the drop and the rename.
    static func migrateToLeanBind(_ db: Database) throws {
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
        try rebuild(db, table: "binding", as: v7Binding, suffix: "_v7")
        try db.execute(sql: "CREATE UNIQUE INDEX binding_by_token ON binding(token_id) WHERE token_id IS NOT NULL")
        try rebuild(db, table: "audit_log", as: v7AuditLog, suffix: "_v7")
    }

    /// Replaces `table` by `definition` (a CREATE TABLE of `<table><suffix>` with the same columns,
    /// and perhaps more with defaults), keeping its rows and its named indexes and triggers. `table`
    /// and `definition` are constants of a migration (v7, v8), never input.
    static func rebuild(_ db: Database, table: String, as definition: String, suffix: String) throws {
        let dependents = try String.fetchAll(
            db,
            sql: """
                SELECT sql FROM sqlite_schema
                WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY rowid
                """,
            arguments: [table]
        )
        let columns = try db.columns(in: table).map(\.name).joined(separator: ", ")
        try db.execute(sql: definition)
        try db.execute(sql: "INSERT INTO \(table)\(suffix) (\(columns)) SELECT \(columns) FROM \(table)")
        try db.execute(sql: "DROP TABLE \(table)")
        try db.execute(sql: "ALTER TABLE \(table)\(suffix) RENAME TO \(table)")
        for statement in dependents { try db.execute(sql: statement) }
    }

    /// `binding` as v1 made it, token_id without its UNIQUE column constraint.
    static let v7Binding = """
        CREATE TABLE binding_v7 (
            device_row INTEGER PRIMARY KEY REFERENCES device(id) ON DELETE RESTRICT,
            account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE RESTRICT,
            home_id INTEGER NOT NULL REFERENCES home(id) ON DELETE RESTRICT,
            token_id INTEGER REFERENCES pairing_token(id),
            bound_at INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('cli', 'csv', 'http', 'daemon')),
            operator TEXT CHECK (operator IS NULL OR length(operator) <= 128)
        ) STRICT
        """

    /// `audit_log` as v1 and v6 made it, without AUTOINCREMENT.
    static let v7AuditLog = """
        CREATE TABLE audit_log_v7 (
            id INTEGER PRIMARY KEY,
            at INTEGER NOT NULL,
            event TEXT NOT NULL CHECK (event IN (
                'account_add', 'home_add', 'register', 'register_update',
                'token_create', 'bind', 'bind_rejected', 'unbind')),
            device_id TEXT,
            imei TEXT,
            account TEXT,
            home TEXT,
            source TEXT,
            operator TEXT,
            code TEXT,
            detail TEXT,
            api_key TEXT CHECK (api_key IS NULL OR length(api_key) BETWEEN 1 AND 64),
            client_address TEXT CHECK ((client_address IS NULL) = (api_key IS NULL)
                AND (client_address IS NULL OR length(client_address) <= 128))
        ) STRICT
        """
}
