extension Registry {
    /// Migration v11: the web console's people (issue 20, docs/console.md). Frozen once shipped.
    ///
    /// - `console_operator`: one row per person who signs in to the console. `password_hash` is a
    ///   PHC string (`$scrypt$ln=15,r=8,p=3$salt$hash`, written by the console's hasher; the store
    ///   never sees a password). `failed_attempts` counts sign-ins refused in a row and
    ///   `locked_until` (ms) ends a lock-out; both live here so a restart does not lift a lock.
    /// - `console_audit`: append-only, one row per thing a person did or tried in the console
    ///   (sign-in, refused sign-in, lock-out, sign-out, bind, unbind, token, batch, modem action),
    ///   with the operator's name and the client's address. Binds and unbinds also write their own
    ///   `audit_log` rows (operator = the person, address on the row).
    static let v11ConsoleOperators = """
        CREATE TABLE console_operator (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
            role TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'binder')),
            password_hash TEXT NOT NULL CHECK (length(password_hash) BETWEEN 16 AND 512),
            failed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
            locked_until INTEGER,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            last_signin_at INTEGER
        ) STRICT;

        CREATE TABLE console_audit (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at INTEGER NOT NULL,
            event TEXT NOT NULL CHECK (length(event) BETWEEN 1 AND 64),
            operator TEXT NOT NULL CHECK (length(operator) BETWEEN 1 AND 128),
            client_address TEXT NOT NULL CHECK (length(client_address) <= 128),
            device_id TEXT,
            code TEXT CHECK (code IS NULL OR length(code) <= 64),
            detail TEXT CHECK (detail IS NULL OR length(detail) <= 1024)
        ) STRICT;
        CREATE INDEX console_audit_by_device ON console_audit(device_id) WHERE device_id IS NOT NULL;

        CREATE TRIGGER console_audit_no_update BEFORE UPDATE ON console_audit
        BEGIN SELECT RAISE(ABORT, 'console_audit is append-only'); END;
        CREATE TRIGGER console_audit_no_delete BEFORE DELETE ON console_audit
        BEGIN SELECT RAISE(ABORT, 'console_audit is append-only'); END;
        """
}
