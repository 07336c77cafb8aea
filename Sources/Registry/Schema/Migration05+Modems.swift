extension Registry {
    /// Migration v5: the modem table (issue 6). Frozen once shipped.
    ///
    /// One row per modem port the gateway supervises, and one row per IMEI: a port's row has no
    /// IMEI while it is being probed; once the probe reads the IMEI the row becomes that module's
    /// row (or merges into the row the IMEI already had, when the module was seen before on this
    /// or another port, so a replug never makes a second row). `state` is the supervisor's state
    /// (`docs/gateway.md`); `absent` rows keep their last known facts for the operator.
    ///
    /// - `port` is unique among rows that are not `absent` (a partial index): two live rows never
    ///   claim one device node, while the history of a port (modules that were on it) stays.
    /// - Registration details are those of 3GPP TS 27.007 §10.1.22 (`+CEREG`): `reg_stat` is
    ///   `<stat>`, `tac`/`ci` hex, `act` the raw `<AcT>`, the PSM timers in seconds.
    /// - Signal: `rssi_dbm` from `+CSQ` (§8.5), `rsrp_dbm`/`rsrq_db` from `+CESQ` (§8.69).
    /// - `device_id` links the cloud registration (the `device` row of the same IMEI).
    /// - `error_code`/`error_message` keep the last failure (with `error_at`) even after recovery.
    static let v5Modems = """
        CREATE TABLE modem (
            id INTEGER PRIMARY KEY,
            port TEXT NOT NULL CHECK (length(port) BETWEEN 1 AND 1024),
            imei TEXT UNIQUE CHECK (imei IS NULL OR (length(imei) = 15 AND imei NOT GLOB '*[^0-9]*')),
            state TEXT NOT NULL CHECK (state IN (
                'probing', 'configuring', 'searching', 'registering', 'ready', 'failed', 'absent', 'not_modem')),
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
            CHECK ((error_code IS NULL) = (error_message IS NULL)),
            CHECK (device_id IS NULL OR imei IS NOT NULL),
            CHECK (last_seen >= first_seen)
        ) STRICT;
        CREATE UNIQUE INDEX modem_port_present ON modem(port) WHERE state <> 'absent';
        CREATE INDEX modem_by_state ON modem(state);

        -- A modem row names the device of its own IMEI, never another module's.
        CREATE TRIGGER modem_device_matches_imei_insert BEFORE INSERT ON modem
        WHEN NEW.device_id IS NOT NULL AND (SELECT imei FROM device WHERE device_id = NEW.device_id) IS NOT NEW.imei
        BEGIN SELECT RAISE(ABORT, 'modem.device_id names the device of another IMEI'); END;
        CREATE TRIGGER modem_device_matches_imei_update BEFORE UPDATE OF device_id, imei ON modem
        WHEN NEW.device_id IS NOT NULL AND (SELECT imei FROM device WHERE device_id = NEW.device_id) IS NOT NEW.imei
        BEGIN SELECT RAISE(ABORT, 'modem.device_id names the device of another IMEI'); END;
        """
}
