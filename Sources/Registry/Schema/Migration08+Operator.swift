import GRDB

extension Registry {
    /// Migration v8: the operator's half (issue 17). Frozen once shipped.
    ///
    /// - `modem`: three more states and a reason. `waiting` (the module is fine but something outside
    ///   it must change: no SIM, a failed SIM, the radio kept off, registration denied, no service),
    ///   `locked` (the SIM wants a PIN or PUK) and `released` (an operator took the port:
    ///   `nbgw modem release`). `reason_code`/`reason_message` say why the module is in its state
    ///   *now* (cleared by the next state that has no reason), where `error_*` keep the last failure
    ///   as history. Both or neither, like the error columns.
    /// - `audit_log`: the operator's actions on modems through the daemon's control socket
    ///   (`modem_at`, `modem_reset`, `modem_reprobe`, `modem_release`, `modem_resume`, and
    ///   `modem_refused` for one refused), and `sim_pin` for the daemon entering a configured PIN
    ///   (the outcome in `code`; never the PIN).
    /// - `sim_pin_rejection`: a PIN a SIM refused, so it is never entered again, not even after a
    ///   restart (a third wrong PIN locks the SIM behind its PUK: a site visit). Keyed by the SIM
    ///   (`ICCID`, else `imei:<IMEI>` when the locked SIM hides its ICCID) and the SHA-256 of
    ///   `subject:PIN`: enough to recognise the same wrong PIN again, and it is a wrong PIN.
    ///
    /// SQLite cannot change a CHECK constraint, so `modem` and `audit_log` are rebuilt the way v7
    /// rebuilt its tables (``rebuild(_:table:as:suffix:)``), their indexes and triggers carried over
    /// from `sqlite_schema`.
    static func migrateToOperator(_ db: Database) throws {
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
        try rebuild(db, table: "modem", as: v8Modem, suffix: "_v8")
        try rebuild(db, table: "audit_log", as: v8AuditLog, suffix: "_v8")
        try db.execute(sql: v8SIMPINRejection)
    }

    /// `modem` as v5 made it, with the v8 states and the reason columns.
    static let v8Modem = """
        CREATE TABLE modem_v8 (
            id INTEGER PRIMARY KEY,
            port TEXT NOT NULL CHECK (length(port) BETWEEN 1 AND 1024),
            imei TEXT UNIQUE CHECK (imei IS NULL OR (length(imei) = 15 AND imei NOT GLOB '*[^0-9]*')),
            state TEXT NOT NULL CHECK (state IN (
                'probing', 'configuring', 'searching', 'registering', 'ready', 'waiting', 'locked', 'failed',
                'released', 'absent', 'not_modem')),
            state_since INTEGER NOT NULL,
            device_key TEXT CHECK (device_key IS NULL OR length(device_key) <= 1024),
            attributes TEXT CHECK (attributes IS NULL OR (length(attributes) <= 8192 AND json_valid(attributes))),
            dialect TEXT CHECK (dialect IS NULL OR length(dialect) BETWEEN 1 AND 64),
            manufacturer TEXT CHECK (manufacturer IS NULL OR length(manufacturer) <= 128),
            model TEXT CHECK (model IS NULL OR length(model) <= 128),
            firmware TEXT CHECK (firmware IS NULL OR length(firmware) <= 128),
            imsi TEXT CHECK (imsi IS NULL OR (length(imsi) BETWEEN 6 AND 15 AND imsi NOT GLOB '*[^0-9]*')),
            iccid TEXT CHECK (iccid IS NULL OR length(iccid) BETWEEN 18 AND 22),
            baud INTEGER CHECK (baud IS NULL OR baud > 0),
            reg_stat INTEGER CHECK (reg_stat IS NULL OR reg_stat BETWEEN 0 AND 255),
            tac TEXT CHECK (tac IS NULL OR length(tac) <= 8),
            ci TEXT CHECK (ci IS NULL OR length(ci) <= 16),
            act INTEGER CHECK (act IS NULL OR act BETWEEN 0 AND 255),
            technology TEXT CHECK (technology IS NULL OR length(technology) <= 32),
            operator TEXT CHECK (operator IS NULL OR length(operator) <= 64),
            reject_cause INTEGER CHECK (reject_cause IS NULL OR reject_cause BETWEEN 0 AND 255),
            psm_active_time_s INTEGER CHECK (psm_active_time_s IS NULL OR psm_active_time_s >= 0),
            psm_periodic_tau_s INTEGER CHECK (psm_periodic_tau_s IS NULL OR psm_periodic_tau_s >= 0),
            registration_at INTEGER,
            rssi_dbm INTEGER CHECK (rssi_dbm IS NULL OR rssi_dbm BETWEEN -150 AND 0),
            rsrp_dbm INTEGER CHECK (rsrp_dbm IS NULL OR rsrp_dbm BETWEEN -160 AND 0),
            rsrq_db REAL CHECK (rsrq_db IS NULL OR rsrq_db BETWEEN -40 AND 10),
            signal_at INTEGER,
            error_code TEXT CHECK (error_code IS NULL OR length(error_code) BETWEEN 1 AND 64),
            error_message TEXT CHECK (error_message IS NULL OR length(error_message) <= 2048),
            error_at INTEGER,
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            retry_at INTEGER,
            device_id TEXT REFERENCES device(device_id),
            first_seen INTEGER NOT NULL,
            last_seen INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            reason_code TEXT CHECK (reason_code IS NULL OR length(reason_code) BETWEEN 1 AND 64),
            reason_message TEXT CHECK (reason_message IS NULL OR length(reason_message) <= 2048),
            CHECK ((error_code IS NULL) = (error_message IS NULL)),
            CHECK ((reason_code IS NULL) = (reason_message IS NULL)),
            CHECK (device_id IS NULL OR imei IS NOT NULL),
            CHECK (last_seen >= first_seen)
        ) STRICT
        """

    /// `audit_log` as v7 made it, with the v8 events.
    static let v8AuditLog = """
        CREATE TABLE audit_log_v8 (
            id INTEGER PRIMARY KEY,
            at INTEGER NOT NULL,
            event TEXT NOT NULL CHECK (event IN (
                'account_add', 'home_add', 'register', 'register_update',
                'token_create', 'bind', 'bind_rejected', 'unbind',
                'modem_at', 'modem_reset', 'modem_reprobe', 'modem_release', 'modem_resume', 'modem_refused',
                'sim_pin')),
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

    /// PINs a SIM refused (see ``migrateToOperator(_:)``).
    static let v8SIMPINRejection = """
        CREATE TABLE sim_pin_rejection (
            subject TEXT NOT NULL CHECK (length(subject) BETWEEN 15 AND 32),
            pin_sha256 BLOB NOT NULL CHECK (length(pin_sha256) = 32),
            rejected_at INTEGER NOT NULL,
            PRIMARY KEY (subject, pin_sha256)
        ) STRICT, WITHOUT ROWID;
        """
}
