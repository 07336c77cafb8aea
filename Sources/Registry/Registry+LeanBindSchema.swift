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
    /// Both tables are rebuilt (SQLite cannot drop a column constraint or AUTOINCREMENT): new table,
    /// copy, drop, rename, then their indexes and triggers as before. GRDB runs a migration with
    /// foreign keys off and checks them all after it. `legacy_alter_table` is on for the renames:
    /// otherwise SQLite re-parses every trigger, and `account_role_change` (on `account`) names
    /// `binding`, which does not exist between the drop and the rename.
    static let v7LeanBind = """
        CREATE TABLE binding_v7 (
            device_row INTEGER PRIMARY KEY REFERENCES device(id) ON DELETE RESTRICT,
            account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE RESTRICT,
            home_id INTEGER NOT NULL REFERENCES home(id) ON DELETE RESTRICT,
            token_id INTEGER REFERENCES pairing_token(id),
            bound_at INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('cli', 'csv', 'http', 'daemon')),
            operator TEXT CHECK (operator IS NULL OR length(operator) <= 128)
        ) STRICT;
        INSERT INTO binding_v7 (device_row, account_id, home_id, token_id, bound_at, source, operator)
        SELECT device_row, account_id, home_id, token_id, bound_at, source, operator FROM binding;
        DROP TABLE binding;
        ALTER TABLE binding_v7 RENAME TO binding;
        CREATE INDEX binding_by_account ON binding(account_id, home_id);
        CREATE UNIQUE INDEX binding_by_token ON binding(token_id) WHERE token_id IS NOT NULL;

        CREATE TRIGGER binding_requires_owner BEFORE INSERT ON binding
        WHEN (SELECT role FROM account WHERE id = NEW.account_id) IS NOT 'owner'
        BEGIN SELECT RAISE(ABORT, 'GUEST_NOT_ALLOWED_STRONG_BIND'); END;

        CREATE TRIGGER binding_home_of_account BEFORE INSERT ON binding
        WHEN (SELECT owner_account_id FROM home WHERE id = NEW.home_id) IS NOT NEW.account_id
        BEGIN SELECT RAISE(ABORT, 'HOME_ACCESS_DENIED'); END;

        CREATE TRIGGER binding_product_allowed BEFORE INSERT ON binding
        WHEN EXISTS (SELECT 1 FROM home_product WHERE home_id = NEW.home_id)
            AND NOT EXISTS (
                SELECT 1 FROM home_product hp JOIN device d ON d.id = NEW.device_row
                WHERE hp.home_id = NEW.home_id AND hp.product_id = d.product_id)
        BEGIN SELECT RAISE(ABORT, 'PRODUCT_NOT_ALLOWED'); END;

        CREATE TRIGGER binding_is_immutable BEFORE UPDATE ON binding
        BEGIN SELECT RAISE(ABORT, 'DEVICE_ALREADY_BOUND'); END;

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
        ) STRICT;
        INSERT INTO audit_log_v7
            (id, at, event, device_id, imei, account, home, source, operator, code, detail, api_key, client_address)
        SELECT id, at, event, device_id, imei, account, home, source, operator, code, detail, api_key, client_address
        FROM audit_log;
        DROP TABLE audit_log;
        ALTER TABLE audit_log_v7 RENAME TO audit_log;
        CREATE INDEX audit_log_by_device ON audit_log(device_id);

        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
        """
}
