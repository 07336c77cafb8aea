import Foundation
import GRDB
import NBGWCore

/// The modem table (migration `v5-modems`): what the gateway's supervisors persist and what
/// `nbgw modems` reads. Every function is one short IMMEDIATE transaction, so the table is
/// consistent after a `kill -9` at any point.
///
/// The writes are `async`: they wait for the write lock on GRDB's writer queue instead of blocking
/// one of the few cooperative threads every modem's AT session runs on. They throw
/// `CancellationError` when the calling task is already cancelled; a supervisor that must persist
/// its last state while being cancelled calls them from a task of its own.
extension Registry {
    /// The modem table (`modem`, migrations v5 and v8) the daemon's supervisors keep, one row per
    /// module they have seen, and what operators did to modems (actions, SIM PIN entries and
    /// refusals, in the audit log). Reached as `registry.modems`; every write is one IMMEDIATE
    /// transaction awaited off the caller's thread (``Registry/modemWrite(_:)``).
    public struct Modems: Sendable {
        let registry: Registry
    }

    /// The modem table and operators' modem actions (``Modems``).
    public var modems: Modems { Modems(registry: self) }
}

extension Registry {
    /// The states the schema accepts, in the order `docs/gateway.md` describes them.
    public static let modemStates = [
        "probing", "configuring", "searching", "registering", "ready", "waiting", "locked", "failed", "released",
        "absent", "not_modem",
    ]

    // MARK: Helpers

    /// One IMMEDIATE transaction on GRDB's writer queue, awaited without blocking the caller's
    /// thread; failures map to ``NBGWError`` like every other store write.
    func modemWrite<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(NBGWError) -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch let error as NBGWError {
            throw error
        } catch is CancellationError {
            throw NBGWError(.internalError, "store \(path): the modem table write was cancelled")
        } catch {
            throw Registry.storeError(error, path: path)
        }
    }

    /// The row that is to hold `imei` on `port` (the rules of
    /// ``Registry/Modems-swift.struct/recordIdentity(port:_:state:)``), with the rows it displaces already dealt with: the
    /// port's IMEI-less row deleted when the IMEI has a row of its own, another IMEI's row on the
    /// port marked `absent`, the IMEI's row moved to `port`.
    static func modemRowTaking(imei: String, port: String, _ db: Database, now: Int64) throws -> Int64 {
        let current = try Registry.presentModemRowID(db, port: port)
        let currentIMEI = try current.flatMap {
            try String.fetchOne(db, sql: "SELECT imei FROM modem WHERE id = ?", arguments: [$0])
        }
        if let current, currentIMEI == imei { return current }
        let owner = try Int64.fetchOne(db, sql: "SELECT id FROM modem WHERE imei = ?", arguments: [imei])
        if let current {
            if currentIMEI == nil {
                if owner != nil {
                    try db.execute(sql: "DELETE FROM modem WHERE id = ?", arguments: [current])
                }
            } else {
                try db.execute(
                    sql: """
                        UPDATE modem SET state = 'absent', state_since = ?, reason_code = NULL, reason_message = NULL,
                            updated_at = ?
                        WHERE id = ?
                        """,
                    arguments: [now, now, current]
                )
            }
        }
        if let owner {
            // The IMEI moves here; if it was present on another port, that port's row is this
            // module's (one row per IMEI), so its old port simply no longer holds it.
            try db.execute(
                sql: "UPDATE modem SET port = ?, updated_at = ? WHERE id = ?",
                arguments: [port, now, owner]
            )
            return owner
        }
        if let current, currentIMEI == nil { return current }
        try db.execute(
            sql: """
                INSERT INTO modem (port, state, state_since, first_seen, last_seen, updated_at)
                VALUES (?, 'probing', ?, ?, ?, ?)
                """,
            arguments: [port, now, now, now, now]
        )
        return db.lastInsertedRowID
    }

    static func presentModemRowID(_ db: Database, port: String) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM modem WHERE port = ? AND state <> 'absent'", arguments: [port])
    }

    static func fetchModem(_ db: Database, id: Int64) throws -> ModemRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM modem WHERE id = ?", arguments: [id]).map(ModemRecord.init)
    }

    static func validateModemPort(_ port: String) throws(NBGWError) {
        guard !port.isEmpty, port.utf8.count <= 1024 else {
            throw NBGWError(.invalidArgument, "port path \(port.escapedForDisplay()) must be 1 to 1024 bytes")
        }
    }

    static func validateModemIMEI(_ imei: String, port: String) throws(NBGWError) {
        guard imei.utf8.count == 15, imei.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw NBGWError(
                .invalidArgument,
                "IMEI \(imei.escapedForDisplay()) read on \(port) is not 15 digits; probe the port again"
            )
        }
    }

    static func encodeAttributes(_ attributes: [String: String]) -> String? {
        guard !attributes.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(attributes), data.count <= 8192 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

extension ModemRecord {
    init(row: Row) {
        let attributes: [String: String] =
            (row["attributes"] as String?).flatMap {
                try? JSONDecoder().decode([String: String].self, from: Data($0.utf8))
            } ?? [:]
        let errorCode: String? = row["error_code"]
        let errorMessage: String? = row["error_message"]
        let errorAt: Int64? = row["error_at"]
        let reasonCode: String? = row["reason_code"]
        let reasonMessage: String? = row["reason_message"]
        self.init(
            port: row["port"],
            imei: row["imei"],
            state: row["state"],
            stateSince: Date(millis: row["state_since"]),
            reason: reasonCode.map { Reason(code: $0, message: reasonMessage ?? "") },
            deviceKey: row["device_key"],
            attributes: attributes,
            dialect: row["dialect"],
            manufacturer: row["manufacturer"],
            model: row["model"],
            firmware: row["firmware"],
            imsi: row["imsi"],
            iccid: row["iccid"],
            baud: row["baud"],
            registration: Registration(
                stat: row["reg_stat"],
                tac: row["tac"],
                ci: row["ci"],
                act: row["act"],
                technology: row["technology"],
                operator: row["operator"],
                rejectCause: row["reject_cause"],
                activeTimeSeconds: row["psm_active_time_s"],
                periodicTAUSeconds: row["psm_periodic_tau_s"],
                at: (row["registration_at"] as Int64?).map(Date.init(millis:))
            ),
            signal: Signal(
                rssiDBm: row["rssi_dbm"],
                rsrpDBm: row["rsrp_dbm"],
                rsrqDB: row["rsrq_db"],
                at: (row["signal_at"] as Int64?).map(Date.init(millis:))
            ),
            lastError: errorCode.map { code in
                Failure(code: code, message: errorMessage ?? "", at: Date(millis: errorAt ?? row["updated_at"]))
            },
            attempts: row["attempts"],
            retryAt: (row["retry_at"] as Int64?).map(Date.init(millis:)),
            deviceID: row["device_id"],
            firstSeen: Date(millis: row["first_seen"]),
            lastSeen: Date(millis: row["last_seen"]),
            updatedAt: Date(millis: row["updated_at"])
        )
    }
}

extension Date {
    /// Milliseconds since the Unix epoch, the unit of every timestamp column.
    var millis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}

extension Registry.Modems {
    /// Starts (or restarts) supervision of `port`: its present row goes to `probing`; without
    /// one, the port's last IMEI-less row is reused, else a new row is made. The IMEI is not known
    /// yet: ``Registry/Modems-swift.struct/recordIdentity(port:_:state:)`` adds it.
    @discardableResult
    public func beginProbe(
        port: String,
        deviceKey: String? = nil,
        attributes: [String: String] = [:]
    ) async throws(NBGWError) -> ModemRecord {
        try Registry.validateModemPort(port)
        let now = registry.nowMillis()
        let attributesJSON = Registry.encodeAttributes(attributes)
        return try await registry.modemWrite { db in
            let existing =
                try Registry.presentModemRowID(db, port: port)
                ?? Int64.fetchOne(
                    db,
                    sql: "SELECT id FROM modem WHERE port = ? AND imei IS NULL ORDER BY updated_at DESC LIMIT 1",
                    arguments: [port]
                )
            if let id = existing {
                try db.execute(
                    sql: """
                        UPDATE modem SET state = 'probing', reason_code = NULL, reason_message = NULL,
                            state_since = CASE WHEN state = 'probing' THEN state_since ELSE ? END,
                            device_key = ?, attributes = ?, retry_at = NULL, updated_at = ?
                        WHERE id = ?
                        """,
                    arguments: [now, deviceKey, attributesJSON, now, id]
                )
                return try Registry.fetchModem(db, id: id)!
            }
            try db.execute(
                sql: """
                    INSERT INTO modem (port, state, state_since, device_key, attributes, first_seen, last_seen, updated_at)
                    VALUES (?, 'probing', ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [port, now, deviceKey, attributesJSON, now, now, now]
            )
            return try Registry.fetchModem(db, id: db.lastInsertedRowID)!
        }
    }

    /// Records what the probe read on `port` and moves the row to `state`, keeping one row per
    /// IMEI:
    ///
    /// - the port's row has no IMEI yet and the IMEI has no row: the port's row takes it;
    /// - the IMEI already has a row (the module was seen before, on this or another port: a
    ///   replug, a restart): that row takes the port and the port's IMEI-less row is dropped, so
    ///   the module keeps its history, first sighting and device id;
    /// - the port's row belongs to another IMEI (a module was swapped while nobody watched):
    ///   that row becomes `absent` and the new IMEI gets its own row (or its old one) on this port.
    ///
    /// After ``Registry/Modems-swift.struct/recordIMEI(port:imei:dialect:manufacturer:model:firmware:baud:state:)`` the
    /// port's row already has the IMEI, and this completes it.
    @discardableResult
    public func recordIdentity(
        port: String,
        _ identity: ModemRecord.Identity,
        state: String
    ) async throws(NBGWError) -> ModemRecord {
        try Registry.validateModemPort(port)
        try Registry.validateModemIMEI(identity.imei, port: port)
        let now = registry.nowMillis()
        return try await registry.modemWrite { db in
            let target = try Registry.modemRowTaking(imei: identity.imei, port: port, db, now: now)
            let registration = identity.registration
            let signal = identity.signal
            try db.execute(
                sql: """
                    UPDATE modem SET imei = ?, state = ?, reason_code = NULL, reason_message = NULL,
                        state_since = CASE WHEN state = ? THEN state_since ELSE ? END,
                        dialect = ?, manufacturer = ?, model = ?, firmware = ?, imsi = ?, iccid = ?, baud = ?,
                        reg_stat = ?, tac = ?, ci = ?, act = ?, technology = ?, operator = ?, reject_cause = ?,
                        psm_active_time_s = ?, psm_periodic_tau_s = ?, registration_at = ?,
                        rssi_dbm = ?, rsrp_dbm = ?, rsrq_db = ?, signal_at = ?,
                        retry_at = NULL, last_seen = ?, updated_at = ?
                    WHERE id = ?
                    """,
                arguments: [
                    identity.imei, state, state, now,
                    identity.dialect, identity.manufacturer, identity.model, identity.firmware, identity.imsi,
                    identity.iccid, identity.baud,
                    registration.stat, registration.tac, registration.ci, registration.act, registration.technology,
                    registration.operator, registration.rejectCause, registration.activeTimeSeconds,
                    registration.periodicTAUSeconds, registration.at.map(\.millis) ?? now,
                    signal.rssiDBm, signal.rsrpDBm, signal.rsrqDB, signal.at.map(\.millis) ?? now,
                    now, now, target,
                ]
            )
            return try Registry.fetchModem(db, id: target)!
        }
    }

    /// Records the IMEI a probe has just read on `port`, with the identification read before it,
    /// while the probe goes on (the supervisor's early claim): the row is chosen by the same rules
    /// as ``Registry/Modems-swift.struct/recordIdentity(port:_:state:)`` (one row per IMEI, one present row per port), so
    /// the full identity recorded when the probe ends lands on the same row.
    ///
    /// Only the IMEI, `state` and the non-nil arguments are written: a module seen before keeps
    /// its last IMSI, ICCID, registration, signal and device id until the full identity replaces
    /// them, exactly as ``Registry/Modems-swift.struct/beginProbe(port:deviceKey:attributes:)`` keeps them.
    @discardableResult
    public func recordIMEI(
        port: String,
        imei: String,
        dialect: String? = nil,
        manufacturer: String? = nil,
        model: String? = nil,
        firmware: String? = nil,
        baud: Int? = nil,
        state: String = "probing"
    ) async throws(NBGWError) -> ModemRecord {
        try Registry.validateModemPort(port)
        try Registry.validateModemIMEI(imei, port: port)
        let now = registry.nowMillis()
        return try await registry.modemWrite { db in
            let target = try Registry.modemRowTaking(imei: imei, port: port, db, now: now)
            try db.execute(
                sql: """
                    UPDATE modem SET imei = ?, state = ?, reason_code = NULL, reason_message = NULL,
                        state_since = CASE WHEN state = ? THEN state_since ELSE ? END,
                        dialect = COALESCE(?, dialect), manufacturer = COALESCE(?, manufacturer),
                        model = COALESCE(?, model), firmware = COALESCE(?, firmware), baud = COALESCE(?, baud),
                        retry_at = NULL, last_seen = ?, updated_at = ?
                    WHERE id = ?
                    """,
                arguments: [
                    imei, state, state, now, dialect, manufacturer, model, firmware, baud, now, now, target,
                ]
            )
            return try Registry.fetchModem(db, id: target)!
        }
    }

    /// Applies `change` to the present row of `port`; returns the row after the change, or nil
    /// when no present row has that port (it was marked absent meanwhile).
    @discardableResult
    public func update(port: String, _ change: ModemRecord.Change) async throws(NBGWError) -> ModemRecord? {
        let now = registry.nowMillis()
        // Column names are constants chosen here; every value is bound.
        var assignments: [String] = ["updated_at = ?"]
        var arguments: [DatabaseValue] = [now.databaseValue]
        func set(_ column: String, _ value: (any DatabaseValueConvertible)?) {
            assignments.append("\(column) = ?")
            arguments.append(value?.databaseValue ?? .null)
        }
        if let state = change.state {
            assignments.append("state_since = CASE WHEN state = ? THEN state_since ELSE ? END")
            arguments += [state.databaseValue, now.databaseValue]
            set("state", state)
        }
        if change.state != nil || change.reason != nil {
            set("reason_code", change.reason.map { String($0.code.prefix(64)) })
            set("reason_message", change.reason.map { String($0.message.prefix(2048)) })
        }
        if let registration = change.registration {
            set("reg_stat", registration.stat)
            set("tac", registration.tac)
            set("ci", registration.ci)
            set("act", registration.act)
            set("technology", registration.technology)
            set("operator", registration.operator)
            set("reject_cause", registration.rejectCause)
            set("psm_active_time_s", registration.activeTimeSeconds)
            set("psm_periodic_tau_s", registration.periodicTAUSeconds)
            set("registration_at", registration.at.map(\.millis) ?? now)
        }
        if let signal = change.signal {
            set("rssi_dbm", signal.rssiDBm)
            set("rsrp_dbm", signal.rsrpDBm)
            set("rsrq_db", signal.rsrqDB)
            set("signal_at", signal.at.map(\.millis) ?? now)
        }
        if let failure = change.failure {
            set("error_code", String(failure.code.prefix(64)))
            set("error_message", String(failure.message.prefix(2048)))
            set("error_at", now)
        }
        if let attempts = change.attempts { set("attempts", max(0, attempts)) }
        if let retryAt = change.retryAt {
            set("retry_at", retryAt.millis)
        } else if change.clearsRetry {
            set("retry_at", nil)
        }
        if let deviceID = change.deviceID { set("device_id", deviceID) }
        if change.seen { set("last_seen", now) }
        let sql = "UPDATE modem SET \(assignments.joined(separator: ", ")) WHERE id = ?"
        let bound = arguments
        return try await registry.modemWrite { db in
            guard let id = try Registry.presentModemRowID(db, port: port) else { return nil }
            try db.execute(sql: sql, arguments: StatementArguments(bound + [id.databaseValue]))
            return try Registry.fetchModem(db, id: id)
        }
    }

    /// Marks the present row of `port` `absent` (unplug, or the gateway stopped supervising it).
    /// Returns false when the port had no present row.
    @discardableResult
    public func markAbsent(port: String) async throws(NBGWError) -> Bool {
        let now = registry.nowMillis()
        return try await registry.modemWrite { db in
            try db.execute(
                sql: """
                    UPDATE modem SET state = 'absent', state_since = ?, retry_at = NULL, reason_code = NULL,
                        reason_message = NULL, updated_at = ?
                    WHERE port = ? AND state <> 'absent'
                    """,
                arguments: [now, now, port]
            )
            return db.changesCount > 0
        }
    }

    /// Forgets `port` when it turned out to be a secondary interface of a module whose AT port is
    /// elsewhere: its IMEI-less present row is deleted (a row with an IMEI is only marked absent).
    public func releasePort(port: String) async throws(NBGWError) {
        let now = registry.nowMillis()
        try await registry.modemWrite { db in
            try db.execute(
                sql: "DELETE FROM modem WHERE port = ? AND state <> 'absent' AND imei IS NULL",
                arguments: [port]
            )
            try db.execute(
                sql: """
                    UPDATE modem SET state = 'absent', state_since = ?, retry_at = NULL, reason_code = NULL,
                        reason_message = NULL, updated_at = ?
                    WHERE port = ? AND state <> 'absent'
                    """,
                arguments: [now, now, port]
            )
        }
    }

    /// Marks every row that is not `absent` as `absent`: what the daemon does at start, so rows a
    /// killed daemon left `ready` or `probing` do not claim a state nobody vouches for until their
    /// port is supervised again. Returns how many rows changed.
    @discardableResult
    public func markAllAbsent() throws(NBGWError) -> Int {
        let now = registry.nowMillis()
        return try registry.write { db in
            try db.execute(
                sql: """
                    UPDATE modem SET state = 'absent', state_since = ?, retry_at = NULL, reason_code = NULL,
                        reason_message = NULL, updated_at = ?
                    WHERE state <> 'absent'
                    """,
                arguments: [now, now]
            )
            return db.changesCount
        }
    }

    /// Every row: present ones first (by port), then absent ones (most recently seen first).
    public func all() throws(NBGWError) -> [ModemRecord] {
        try registry.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM modem
                    ORDER BY state = 'absent', CASE WHEN state = 'absent' THEN -last_seen ELSE 0 END, port, id
                    """
            ).map(ModemRecord.init)
        }
    }

    /// The row of an IMEI, else the present row of a port, else the port's most recent row.
    public func find(imeiOrPort key: String) throws(NBGWError) -> ModemRecord? {
        try registry.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT * FROM modem WHERE imei = ? OR port = ?
                    ORDER BY imei = ? DESC, state <> 'absent' DESC, updated_at DESC, id DESC LIMIT 1
                    """,
                arguments: [key, key, key]
            ).map(ModemRecord.init)
        }
    }
}
