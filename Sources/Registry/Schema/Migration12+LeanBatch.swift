import GRDB

extension Registry {
    /// Migration v12: the same rules for half the writes of a CSV bind (issue 21). Frozen once shipped.
    ///
    /// - **A home's owner, by a foreign key.** `binding(home_id, account_id)` references
    ///   `home(id, owner_account_id)` (a unique index makes that pair a key). A binding therefore
    ///   names a home its account owns, which the trigger `binding_home_of_account` checked before;
    ///   and since a home's owner has the owner role (`home_owner_has_owner_role`, and now
    ///   `home_owner_change` for an update) and an account that owns a home cannot become a guest
    ///   (`account_role_change`), the bound account is an owner, which `binding_requires_owner`
    ///   checked. Both triggers go; the separate foreign keys to `account` and `home` go too (the
    ///   pair implies them). One index probe instead of two trigger programs per row. What changes
    ///   for a raw-SQL writer: the refusal reads `FOREIGN KEY constraint failed` instead of naming
    ///   the rule, and it needs `PRAGMA foreign_keys = ON`, which every nbgw connection sets (and
    ///   `nbgw store check` runs `foreign_key_check`). nbgw itself decides with ``BindingRules``
    ///   first, so its own errors are unchanged.
    /// - **A CSV bind's audit kept with its job.** A batch already wrote one `batch_job_device` row
    ///   per device it met (its line, for `DUPLICATE_IN_FILE`); a row that bound its device now also
    ///   carries when, to whom and by whom (`bound_at`, `account_id`, `home_id`, `operator`), and the
    ///   batch writes no `audit_log` row for it: one B-tree row per bind instead of two plus the
    ///   audit log's device index. The primary key turns to `(device_row, job_id)` so a device's
    ///   trail finds its batch binds by the key's prefix. Such a row is append-only like the audit
    ///   log (`batch_job_device_no_update`, `batch_job_device_no_delete`, and no more cascade from
    ///   `batch_job`). The view `audit_trail` reads both as one trail, a batch bind as an audit row
    ///   with event `bind`, source `csv`, detail `job#J line L` (what the batch wrote before) and
    ///   the id `-(J × 2³² + L)`: unique and stable, negative so it never meets an `audit_log` id.
    ///   Rows of batches run before v12 keep their `audit_log` rows; nothing is written twice.
    ///
    /// Measured with `tools/bench-csv.sh`'s set-wise floor (SQLite alone doing a million binds'
    /// writes, no parsing or rules), v11 → v12 on this machine: 6.86 → 3.37 s; of that, the two
    /// triggers to the composite key 3.14 → 2.76 s for the binding rows alone, and the audit log's
    /// rows cost about 3 s by themselves (docs/cli.md, "Batch binding").
    ///
    /// Tables are rebuilt the way v7 and v8 rebuilt theirs (``rebuild(_:table:as:suffix:)``).
    static func migrateToLeanBatch(_ db: Database) throws {
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
        try db.execute(sql: v12HomeOwnerKey)
        try db.execute(sql: "DROP TRIGGER binding_requires_owner")
        try db.execute(sql: "DROP TRIGGER binding_home_of_account")
        try rebuild(db, table: "binding", as: v12Binding, suffix: "_v12")
        try rebuild(db, table: "batch_job_device", as: v12BatchJobDevice, suffix: "_v12")
        try db.execute(sql: v12BatchAudit)
    }

    /// The pair a binding's foreign key names, and the owner rule kept on an update of a home.
    static let v12HomeOwnerKey = """
        CREATE UNIQUE INDEX home_by_owner ON home(id, owner_account_id);

        CREATE TRIGGER home_owner_change BEFORE UPDATE OF owner_account_id ON home
        WHEN (SELECT role FROM account WHERE id = NEW.owner_account_id) IS NOT 'owner'
        BEGIN SELECT RAISE(ABORT, 'HOME_ACCESS_DENIED'); END;
        """

    /// `binding` as v7 made it, its home and account one foreign key to the home's owner.
    static let v12Binding = """
        CREATE TABLE binding_v12 (
            device_row INTEGER PRIMARY KEY REFERENCES device(id) ON DELETE RESTRICT,
            account_id INTEGER NOT NULL,
            home_id INTEGER NOT NULL,
            token_id INTEGER REFERENCES pairing_token(id),
            bound_at INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('cli', 'csv', 'http', 'daemon')),
            operator TEXT CHECK (operator IS NULL OR length(operator) <= 128),
            FOREIGN KEY (home_id, account_id) REFERENCES home(id, owner_account_id)
                ON DELETE RESTRICT ON UPDATE RESTRICT
        ) STRICT
        """

    /// `batch_job_device` keyed by device first, with the bind's audit facts.
    static let v12BatchJobDevice = """
        CREATE TABLE batch_job_device_v12 (
            device_row INTEGER NOT NULL REFERENCES device(id),
            job_id INTEGER NOT NULL REFERENCES batch_job(id),
            line INTEGER NOT NULL CHECK (line BETWEEN 1 AND 4294967295),
            bound_at INTEGER,
            account_id INTEGER,
            home_id INTEGER,
            operator TEXT CHECK (operator IS NULL OR length(operator) <= 128),
            CHECK ((bound_at IS NULL) = (account_id IS NULL) AND (bound_at IS NULL) = (home_id IS NULL)),
            CHECK (bound_at IS NOT NULL OR operator IS NULL),
            PRIMARY KEY (device_row, job_id)
        ) STRICT, WITHOUT ROWID
        """

    /// The batch binds' append-only rule and the one trail readers use.
    static let v12BatchAudit = """
        CREATE TRIGGER batch_job_device_no_update BEFORE UPDATE ON batch_job_device
        BEGIN SELECT RAISE(ABORT, 'batch_job_device is append-only'); END;
        CREATE TRIGGER batch_job_device_no_delete BEFORE DELETE ON batch_job_device
        WHEN OLD.bound_at IS NOT NULL
        BEGIN SELECT RAISE(ABORT, 'a batch bind is audit: batch_job_device keeps it'); END;

        CREATE VIEW audit_trail (
            id, at, event, device_id, imei, account, home, source, operator, code, detail, api_key, client_address
        ) AS
        SELECT id, at, event, device_id, imei, account, home, source, operator, code, detail, api_key, client_address
        FROM audit_log
        UNION ALL
        SELECT -(s.job_id * 4294967296 + s.line), s.bound_at, 'bind', d.device_id, d.imei, a.name, h.name, 'csv',
            s.operator, NULL, 'job#' || s.job_id || ' line ' || s.line, NULL, NULL
        FROM batch_job_device AS s
        JOIN device AS d ON d.id = s.device_row
        LEFT JOIN account AS a ON a.id = s.account_id
        LEFT JOIN home AS h ON h.id = s.home_id
        WHERE s.bound_at IS NOT NULL;
        """
}
