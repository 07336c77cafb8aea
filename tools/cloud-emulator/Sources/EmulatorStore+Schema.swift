import GRDB

extension EmulatorStore {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-emulator") { db in
            try db.execute(sql: v1Emulator)
        }
        return migrator
    }

    /// Timestamps are INTEGER milliseconds since the epoch. The cloud's own rules are in the schema
    /// too: one binding per device (strong binding), single-use pairing tokens, a home's bindings
    /// belong to its owner.
    static let v1Emulator = """
        CREATE TABLE access_token (
            access_token TEXT PRIMARY KEY CHECK (length(access_token) = 32),
            refresh_token TEXT NOT NULL UNIQUE CHECK (length(refresh_token) = 32),
            uid TEXT NOT NULL,
            issued_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL CHECK (expires_at > issued_at),
            -- Replaced by a refresh: the pair is dead, the refresh token spent.
            revoked INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
            -- Expired on demand (the `expire_all_tokens` fault).
            forced_expired INTEGER NOT NULL DEFAULT 0 CHECK (forced_expired IN (0, 1))
        ) STRICT;

        CREATE TABLE device (
            device_id TEXT PRIMARY KEY
                CHECK (length(device_id) BETWEEN 1 AND 64 AND device_id NOT GLOB '*[^A-Za-z0-9_.-]*'),
            imei TEXT NOT NULL UNIQUE CHECK (length(imei) = 15 AND imei NOT GLOB '*[^0-9]*'),
            imsi TEXT CHECK (imsi IS NULL OR length(imsi) BETWEEN 6 AND 15),
            iccid TEXT CHECK (iccid IS NULL OR length(iccid) BETWEEN 18 AND 22),
            manufacturer TEXT CHECK (manufacturer IS NULL OR length(manufacturer) <= 64),
            model TEXT CHECK (model IS NULL OR length(model) <= 64),
            firmware TEXT CHECK (firmware IS NULL OR length(firmware) <= 128),
            product_id TEXT CHECK (product_id IS NULL OR length(product_id) BETWEEN 1 AND 64),
            label_code TEXT NOT NULL UNIQUE
                CHECK (length(label_code) BETWEEN 4 AND 64 AND label_code NOT GLOB '*[^A-Za-z0-9]*'),
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE home (
            name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 64),
            owner_uid TEXT NOT NULL CHECK (length(owner_uid) BETWEEN 1 AND 64),
            created_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE pairing_token (
            token TEXT PRIMARY KEY CHECK (length(token) = 20),
            home TEXT NOT NULL REFERENCES home(name),
            uid TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at INTEGER,
            used_by TEXT,
            CHECK (expires_at > created_at),
            CHECK ((used_at IS NULL) = (used_by IS NULL))
        ) STRICT;

        CREATE TRIGGER pairing_token_single_use BEFORE UPDATE ON pairing_token
        WHEN OLD.used_at IS NOT NULL
        BEGIN SELECT RAISE(ABORT, 'pairing token already used'); END;

        -- Strong binding: the device is the primary key.
        CREATE TABLE binding (
            device_id TEXT PRIMARY KEY REFERENCES device(device_id),
            uid TEXT NOT NULL,
            home TEXT NOT NULL REFERENCES home(name),
            token TEXT REFERENCES pairing_token(token),
            bound_at INTEGER NOT NULL
        ) STRICT;

        CREATE TRIGGER binding_home_owner BEFORE INSERT ON binding
        WHEN (SELECT owner_uid FROM home WHERE name = NEW.home) IS NOT NEW.uid
        BEGIN SELECT RAISE(ABORT, 'home belongs to another account'); END;

        CREATE TABLE pairing_outcome (
            token TEXT NOT NULL REFERENCES pairing_token(token),
            device_id TEXT NOT NULL,
            success INTEGER NOT NULL CHECK (success IN (0, 1)),
            error_code TEXT,
            error_msg TEXT,
            at INTEGER NOT NULL,
            PRIMARY KEY (token, device_id),
            CHECK ((success = 1) = (error_code IS NULL))
        ) STRICT;

        CREATE TABLE idempotency (
            client_id TEXT NOT NULL,
            key TEXT NOT NULL CHECK (length(key) BETWEEN 16 AND 64),
            request_hash TEXT NOT NULL CHECK (length(request_hash) = 64),
            response TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (client_id, key)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE effect (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at INTEGER NOT NULL,
            operation TEXT NOT NULL CHECK (operation IN (
                'register', 'register_update', 'pairing_token', 'bind', 'unbind', 'token_grant', 'token_refresh')),
            subject TEXT NOT NULL,
            idempotency_key TEXT
        ) STRICT;
        CREATE INDEX effect_by_subject ON effect(subject);

        CREATE TABLE request_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at INTEGER NOT NULL,
            method TEXT NOT NULL,
            route TEXT NOT NULL,
            status INTEGER NOT NULL,
            code INTEGER,
            idempotency_key TEXT,
            replayed INTEGER NOT NULL CHECK (replayed IN (0, 1)),
            fault TEXT
        ) STRICT;
        """
}
