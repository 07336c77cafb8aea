extension Registry {
    /// Migration v13: the gateway under hostile load and hostile people (issue 30). Frozen once shipped.
    ///
    /// - `console_session`: the console's sessions, in the store so that a daemon restart does not
    ///   sign everyone out and so that every process that changes an operator (the CLI too) ends
    ///   that operator's sessions in the same transaction. `digest` is SHA-256 of the cookie's value
    ///   (hex); the value itself is never stored. The role is not copied: a request reads the
    ///   operator's row. Times in ms: `expires_at` is the absolute end (sign-in + 12 h),
    ///   `last_seen_at` moves at most once a minute (the idle end is that coarse).
    /// - Triggers end an operator's sessions when their password, role or name changes, or when they
    ///   are removed: whoever writes the change (the console, `nbgw operators`, plain SQL), the
    ///   sessions go with it.
    /// - `console_signin_failure`: refused sign-ins in a row per name **and** client address (the
    ///   address without its port), for any name, known or not: a lock-out then neither says
    ///   whether a name exists nor lets someone elsewhere lock its owner out. The per-name columns
    ///   of `console_operator` (`failed_attempts`, `locked_until`) are no longer written.
    /// - `console_audit`: refused sign-ins (`signin_refused`, `signin_locked`, `lockout`) may be
    ///   deleted (the daemon ages them out after 30 days); every other row stays append-only.
    /// - `api_key.scope`: what a key may do. `full` (every route, what keys did before) or `bind`
    ///   (parse a QR, bind, a pairing result: a scanner or a station), fixed at creation.
    static let v13SessionsAndScopes = """
        CREATE TABLE console_session (
            digest TEXT PRIMARY KEY CHECK (length(digest) = 64 AND digest NOT GLOB '*[^0-9a-f]*'),
            operator_id INTEGER NOT NULL REFERENCES console_operator(id) ON DELETE CASCADE,
            csrf_token TEXT NOT NULL CHECK (length(csrf_token) BETWEEN 16 AND 128),
            client_address TEXT NOT NULL CHECK (length(client_address) <= 128),
            created_at INTEGER NOT NULL,
            last_seen_at INTEGER NOT NULL CHECK (last_seen_at >= created_at),
            expires_at INTEGER NOT NULL CHECK (expires_at > created_at)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX console_session_by_operator ON console_session(operator_id);
        CREATE INDEX console_session_by_expiry ON console_session(expires_at);

        CREATE TRIGGER console_session_end_on_change AFTER UPDATE OF password_hash, role, name ON console_operator
        WHEN NEW.password_hash IS NOT OLD.password_hash OR NEW.role IS NOT OLD.role OR NEW.name IS NOT OLD.name
        BEGIN DELETE FROM console_session WHERE operator_id = OLD.id; END;
        CREATE TRIGGER console_session_end_on_remove AFTER DELETE ON console_operator
        BEGIN DELETE FROM console_session WHERE operator_id = OLD.id; END;

        CREATE TABLE console_signin_failure (
            name TEXT NOT NULL CHECK (length(name) <= 64),
            client TEXT NOT NULL CHECK (length(client) <= 64),
            failures INTEGER NOT NULL CHECK (failures >= 1),
            last_at INTEGER NOT NULL,
            locked_until INTEGER,
            PRIMARY KEY (name, client)
        ) STRICT, WITHOUT ROWID;

        DROP TRIGGER console_audit_no_delete;
        CREATE TRIGGER console_audit_no_delete BEFORE DELETE ON console_audit
        WHEN OLD.event NOT IN ('signin_refused', 'signin_locked', 'lockout')
        BEGIN SELECT RAISE(ABORT, 'console_audit is append-only'); END;
        CREATE INDEX console_audit_refusals ON console_audit(at)
        WHERE event IN ('signin_refused', 'signin_locked', 'lockout');

        ALTER TABLE api_key ADD COLUMN scope TEXT NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'bind'));
        CREATE TRIGGER api_key_scope_is_fixed BEFORE UPDATE OF scope ON api_key
        WHEN NEW.scope IS NOT OLD.scope
        BEGIN SELECT RAISE(ABORT, 'an API key keeps the scope it was created with; create another key'); END;
        """
}
