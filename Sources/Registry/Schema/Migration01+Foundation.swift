import GRDB

extension Registry {
    /// Migration v1 (`v1-foundation`): accounts, homes, devices, pairing tokens, bindings and the
    /// append-only audit log, with the triggers that hold the seed's binding rules.
    static let v1Foundation = """
        CREATE TABLE account (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
            role TEXT NOT NULL CHECK (role IN ('owner', 'guest')),
            created_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE home (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
            owner_account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE RESTRICT,
            created_at INTEGER NOT NULL
        ) STRICT;

        -- Only an owner account can own a home.
        CREATE TRIGGER home_owner_has_owner_role BEFORE INSERT ON home
        WHEN (SELECT role FROM account WHERE id = NEW.owner_account_id) IS NOT 'owner'
        BEGIN SELECT RAISE(ABORT, 'HOME_ACCESS_DENIED'); END;

        -- An account that owns homes or bindings cannot become a guest.
        CREATE TRIGGER account_role_change BEFORE UPDATE OF role ON account
        WHEN NEW.role = 'guest' AND (
            EXISTS (SELECT 1 FROM home WHERE owner_account_id = NEW.id)
            OR EXISTS (SELECT 1 FROM binding WHERE account_id = NEW.id))
        BEGIN SELECT RAISE(ABORT, 'GUEST_NOT_ALLOWED_STRONG_BIND'); END;

        -- A home's product allow-list; no rows means every product is allowed.
        CREATE TABLE home_product (
            home_id INTEGER NOT NULL REFERENCES home(id) ON DELETE CASCADE,
            product_id TEXT NOT NULL CHECK (length(product_id) BETWEEN 1 AND 64),
            PRIMARY KEY (home_id, product_id)
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE device (
            id INTEGER PRIMARY KEY,
            device_id TEXT NOT NULL UNIQUE CHECK (length(device_id) BETWEEN 1 AND 64),
            imei TEXT NOT NULL UNIQUE CHECK (length(imei) = 15 AND imei NOT GLOB '*[^0-9]*'),
            imsi TEXT CHECK (imsi IS NULL OR (length(imsi) BETWEEN 6 AND 15 AND imsi NOT GLOB '*[^0-9]*')),
            iccid TEXT CHECK (iccid IS NULL OR length(iccid) BETWEEN 18 AND 22),
            manufacturer TEXT CHECK (manufacturer IS NULL OR length(manufacturer) <= 64),
            model TEXT CHECK (model IS NULL OR length(model) <= 64),
            firmware TEXT CHECK (firmware IS NULL OR length(firmware) <= 128),
            product_id TEXT CHECK (product_id IS NULL OR length(product_id) BETWEEN 1 AND 64),
            label_code TEXT NOT NULL UNIQUE CHECK (length(label_code) BETWEEN 4 AND 64),
            registered_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;

        CREATE TABLE pairing_token (
            id INTEGER PRIMARY KEY,
            token TEXT NOT NULL UNIQUE CHECK (length(token) BETWEEN 8 AND 64),
            home_id INTEGER NOT NULL REFERENCES home(id) ON DELETE CASCADE,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            used_at INTEGER,
            used_by_device INTEGER REFERENCES device(id),
            CHECK (expires_at > created_at),
            CHECK ((used_at IS NULL) = (used_by_device IS NULL)),
            CHECK (used_at IS NULL OR used_at <= expires_at)
        ) STRICT;

        -- A token dies when a device binds with it: once used, it never changes again.
        CREATE TRIGGER pairing_token_single_use BEFORE UPDATE ON pairing_token
        WHEN OLD.used_at IS NOT NULL
        BEGIN SELECT RAISE(ABORT, 'TOKEN_EXPIRED'); END;

        -- At most one binding per device: the primary key is the device.
        CREATE TABLE binding (
            device_row INTEGER PRIMARY KEY REFERENCES device(id) ON DELETE RESTRICT,
            account_id INTEGER NOT NULL REFERENCES account(id) ON DELETE RESTRICT,
            home_id INTEGER NOT NULL REFERENCES home(id) ON DELETE RESTRICT,
            token_id INTEGER UNIQUE REFERENCES pairing_token(id),
            bound_at INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('cli', 'csv', 'http', 'daemon')),
            operator TEXT CHECK (operator IS NULL OR length(operator) <= 128)
        ) STRICT;
        CREATE INDEX binding_by_account ON binding(account_id, home_id);

        -- Strong binding rules the schema can check by itself.
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

        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
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
            detail TEXT
        ) STRICT;
        CREATE INDEX audit_log_by_device ON audit_log(device_id);

        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
        """
}
