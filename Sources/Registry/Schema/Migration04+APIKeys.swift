extension Registry {
    /// Migration v4: operator API keys for the ingest API (issue 7), and the ingest API's own
    /// request trail (which key, from which client address, with which pairing token), linked to
    /// the audit rows the binds wrote. Frozen once shipped.
    ///
    /// Only a SHA-256 digest of a key is stored (keys are 256-bit random strings, so a plain hash
    /// is enough; no salt or stretching needed). `prefix` is the public lookup part of the key
    /// (`nbgw_` + 8 characters) so verification reads one row and compares one digest.
    static let v4APIKeys = """
        CREATE TABLE api_key (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE CHECK (
                length(name) BETWEEN 1 AND 64 AND name NOT GLOB '*[^A-Za-z0-9._-]*'),
            prefix TEXT NOT NULL UNIQUE CHECK (length(prefix) BETWEEN 8 AND 32),
            key_hash BLOB NOT NULL CHECK (length(key_hash) = 32),
            created_at INTEGER NOT NULL,
            revoked_at INTEGER,
            last_used_at INTEGER,
            CHECK (revoked_at IS NULL OR revoked_at >= created_at)
        ) STRICT;

        -- A revoked key stays revoked, and its digest never changes.
        CREATE TRIGGER api_key_revocation_is_final BEFORE UPDATE OF revoked_at, key_hash, prefix, name ON api_key
        WHEN OLD.revoked_at IS NOT NULL OR NEW.key_hash IS NOT OLD.key_hash OR NEW.prefix IS NOT OLD.prefix
            OR NEW.name IS NOT OLD.name
        BEGIN SELECT RAISE(ABORT, 'api_key rows only get revoked, once'); END;

        -- One row per ingest API request that binds, unbinds or issues a token: the key's name and
        -- the client address, linked to the audit_log row the change wrote (when it wrote one).
        CREATE TABLE ingest_audit (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at INTEGER NOT NULL,
            audit_id INTEGER UNIQUE REFERENCES audit_log(id),
            event TEXT NOT NULL CHECK (event IN (
                'bind', 'bind_unchanged', 'bind_rejected', 'unbind', 'unbind_rejected', 'token_create')),
            api_key TEXT NOT NULL CHECK (length(api_key) BETWEEN 1 AND 64),
            client_address TEXT NOT NULL CHECK (length(client_address) <= 128),
            device_id TEXT,
            account TEXT,
            home TEXT,
            -- pairing_token.id, no foreign key: the trail outlives tokens (a home's deletion cascades).
            token_id INTEGER,
            code TEXT,
            message TEXT CHECK (message IS NULL OR length(message) <= 1024)
        ) STRICT;
        CREATE INDEX ingest_audit_by_token ON ingest_audit(token_id) WHERE token_id IS NOT NULL;
        CREATE INDEX ingest_audit_by_device ON ingest_audit(device_id);

        CREATE TRIGGER ingest_audit_no_update BEFORE UPDATE ON ingest_audit
        BEGIN SELECT RAISE(ABORT, 'ingest_audit is append-only'); END;
        CREATE TRIGGER ingest_audit_no_delete BEFORE DELETE ON ingest_audit
        BEGIN SELECT RAISE(ABORT, 'ingest_audit is append-only'); END;
        """
}
