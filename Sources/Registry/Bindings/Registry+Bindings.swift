import CSQLite
import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import Pairing

extension Registry {
    /// The bindings of registered devices to accounts' homes (`binding`): a bind under the seed's
    /// rules, alone (``bind(_:timeout:)``), in a group commit (``bindInGroup(_:timeout:queueForCloud:)``)
    /// or chunk by chunk in a CSV batch (``withBatchSession(dryRun:queueForCloud:_:)``), an unbind,
    /// the listing and the lookup. Reached as `registry.bindings`; the rules' SQL (facts, the
    /// prepared statements of the hot path) stays on ``Registry`` beside the transaction helpers.
    public struct Bindings: Sendable {
        let registry: Registry
    }

    /// The bindings and every way to make or remove one (``Bindings``).
    public var bindings: Bindings { Bindings(registry: self) }
}

extension Registry.Bindings {
    /// Binds a device under the seed's rules, atomically, in one IMMEDIATE transaction:
    /// account exists and is an owner (`GUEST_NOT_ALLOWED_STRONG_BIND`), the home exists and is
    /// the account's, the device is registered, it is not bound elsewhere (strong binding), its
    /// product is on the home's allow-list, and the pairing token is the home's, unexpired and
    /// unused (it dies with this bind). Binding again to the same account and home is `unchanged`.
    ///
    /// - Parameter timeout: the activation budget. Waiting for another process's write lock counts
    ///   against it; when it runs out nothing is bound and the error is `TIMEOUT`.
    public func bind(
        _ command: BindCommand,
        timeout: Duration = BindingRules.defaultActivationTimeout
    )
        throws(NBGWError) -> BindOutcome
    {
        // One implementation: the cloud-synced variant (Registry+CloudSync) with nothing to queue.
        try bind(command, timeout: timeout, queueForCloud: false).change
    }

    /// Removes a device's binding (the owner's "remove device"); the device stays registered.
    @discardableResult
    public func unbind(
        deviceID: String,
        source: BindingSource,
        operator: String? = nil
    ) throws(NBGWError)
        -> BindingRecord
    {
        // One implementation: the cloud-synced variant with nothing to queue.
        try unbind(deviceID: deviceID, source: source, operator: `operator`, queueForCloud: false).change
    }

    /// Bindings, by device id, optionally for one account; `limit` at a time after `afterDeviceID`.
    public func list(
        account: String? = nil,
        limit: Int = 1000,
        after afterDeviceID: String = ""
    )
        throws(NBGWError) -> [BindingRecord]
    {
        try registry.read { db in
            try Registry.fetchBindings(db, deviceID: nil, account: account, limit: limit, after: afterDeviceID)
        }
    }

    /// The binding of `deviceID`, nil when the device is not bound.
    public func find(deviceID: String) throws(NBGWError) -> BindingRecord? {
        try registry.read { db in try Registry.fetchBindings(db, deviceID: deviceID, account: nil).first }
    }
}

extension Registry {
    /// Runs `body` on the writer with SQLite's busy timeout set to `timeout` (restored after), and
    /// reports an exhausted wait as `TIMEOUT`.
    func withBusyTimeout<T>(_ timeout: Duration, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                // sqlite3_busy_timeout is what `PRAGMA busy_timeout` and GRDB's busy mode call, without
                // compiling a statement twice per bind.
                let connection = db.sqliteConnection
                let custom = timeout != busyTimeout
                if custom { sqlite3_busy_timeout(connection, Int32(clamping: max(0, timeout.milliseconds))) }
                defer { if custom { sqlite3_busy_timeout(connection, Int32(clamping: busyTimeout.milliseconds)) } }
                return try body(db)
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            throw activationTimeout(timeout)
        }
    }

    /// The error of a bind whose activation budget ran out before it got the store's write lock.
    func activationTimeout(_ timeout: Duration) -> NBGWError {
        NBGWError(
            .timeout,
            "activation did not finish within \(timeout.timeInterval) s: the store \(path) stayed locked by "
                + "another writer; retry, or raise --timeout"
        )
    }

    /// Evaluates and applies one bind inside the caller's IMMEDIATE transaction: the binding, the
    /// token it uses up and its audit row, which for an ingest API command carries the key's name
    /// and the client's address (an unchanged bind writes an `ingest_audit` row instead).
    ///
    /// A bind is a handful of indexed lookups and inserts, so their fixed costs dominate: every
    /// statement is prepared once per connection (GRDB's statement cache) and run through the C API
    /// (``PreparedStatement/cached(_:_:)``), without GRDB's argument arrays and row objects.
    ///
    /// - Parameter owners: the account and home facts already read in this transaction (a group
    ///   commit passes one for all its binds; a lone bind a fresh one).
    static func bindRules(
        _ db: Database,
        _ command: BindCommand,
        now: Int64,
        owners: inout OwnerFacts
    ) throws -> BindOutcome {
        let device = command.deviceID.rawValue
        let facts = try gatherFacts(db, command, owners: &owners)
        let decision = try BindingRules.evaluate(facts.facts, nowMillis: now)
        let imei = facts.facts.device?.imei ?? ""
        if decision == .unchanged {
            let existing = try PreparedStatement.cached(
                db,
                "SELECT bound_at, source, operator FROM binding WHERE device_row = ?"
            )
            existing.bind(.integer(facts.deviceRow))
            let (boundAt, source, boundBy) = try existing.first { ($0.int64(0), $0.string(1), $0.string(2)) }!
            let outcome = BindOutcome(
                status: .unchanged,
                binding: BindingRecord(
                    deviceID: device,
                    imei: imei,
                    account: command.account,
                    home: command.home,
                    boundAt: Date(millis: boundAt),
                    source: source.flatMap(BindingSource.init(rawValue:)) ?? .cli,
                    operator: boundBy
                )
            )
            if let origin = command.ingest {
                try appendIngestAudit(
                    db,
                    at: now,
                    auditID: nil,
                    kind: .bindUnchanged,
                    origin: origin,
                    command: command,
                    tokenID: facts.tokenRow
                )
            }
            return outcome
        }
        let accountID = facts.facts.account!.id
        let homeID = facts.facts.home!.id
        // A presented token dies with this bind (the single-use trigger refuses a second use). A
        // bind without one is made on its caller's authority (an API key, the local operator), as
        // a CSV batch row is: the binding has no token (token_id NULL) and no token is invented
        // for it. Why not issue one and use it at once, as nbgw did before: nobody ever sees such a
        // token, and its row (a random key in a unique index) and its audit row were a quarter of
        // a bind's SQL.
        if let presented = facts.tokenRow {
            let useToken = try PreparedStatement.cached(
                db,
                "UPDATE pairing_token SET used_at = ?, used_by_device = ? WHERE id = ?"
            )
            useToken.bind(.integer(now), .integer(facts.deviceRow), .integer(presented))
            try useToken.run()
        }
        let insert = try PreparedStatement.cached(
            db,
            """
            INSERT INTO binding (device_row, account_id, home_id, token_id, bound_at, source, operator)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """
        )
        insert.bind(
            .integer(facts.deviceRow),
            .integer(accountID),
            .integer(homeID),
            .integer(facts.tokenRow),
            .integer(now),
            .text(command.source.rawValue),
            .text(command.operator)
        )
        try insert.run()
        try appendAudit(
            db,
            at: now,
            event: "bind",
            deviceID: device,
            imei: imei,
            account: command.account,
            home: command.home,
            source: command.source.rawValue,
            operator: command.operator,
            detail: facts.tokenRow.map { "token#\($0)" },
            // An ingest API bind's trail is this row (migration v6): no `ingest_audit` row.
            origin: command.ingest
        )
        return BindOutcome(
            status: .bound,
            binding: BindingRecord(
                deviceID: device,
                imei: imei,
                account: command.account,
                home: command.home,
                boundAt: Date(millis: now),
                source: command.source,
                operator: command.operator
            )
        )
    }

    /// Reads the facts ``BindingRules/evaluate(_:nowMillis:)`` decides on, inside the bind's transaction.
    static func gatherFacts(
        _ db: Database,
        _ command: BindCommand,
        owners: inout OwnerFacts
    ) throws
        -> (facts: BindFacts, deviceRow: Int64?, tokenRow: Int64?)
    {
        let account = try owners.account(command.account) {
            let accounts = try PreparedStatement.cached(db, "SELECT id, role FROM account WHERE name = ?")
            accounts.bind(.text(command.account))
            return try accounts.first {
                BindFacts.AccountFacts(id: $0.int64(0), isOwner: $0.string(1) == Account.Role.owner.rawValue)
            }
        }
        let home = try owners.home(command.home) {
            let homes = try PreparedStatement.cached(db, "SELECT id, owner_account_id FROM home WHERE name = ?")
            homes.bind(.text(command.home))
            var home = try homes.first {
                BindFacts.HomeFacts(id: $0.int64(0), ownerAccountID: $0.int64(1), allowedProducts: [])
            }
            if let id = home?.id {
                let products = try PreparedStatement.cached(
                    db,
                    "SELECT product_id FROM home_product WHERE home_id = ? ORDER BY product_id"
                )
                products.bind(.integer(id))
                defer { products.reset() }
                while try products.step() {
                    if let product = products.string(0) { home?.allowedProducts.append(product) }
                }
            }
            return home
        }
        let devices = try PreparedStatement.cached(
            db,
            """
            SELECT d.id, d.imei, d.product_id, b.account_id, b.home_id, h.name AS home
            FROM device d LEFT JOIN binding b ON b.device_row = d.id LEFT JOIN home h ON h.id = b.home_id
            WHERE d.device_id = ?
            """
        )
        devices.bind(.text(command.deviceID.rawValue))
        let deviceRow = try devices.first { row in
            (
                id: row.int64(0),
                facts: BindFacts.DeviceFacts(imei: row.string(1) ?? "", productID: row.string(2)),
                existing: row.optionalInt64(3).map {
                    BindFacts.ExistingBinding(accountID: $0, homeID: row.int64(4), homeName: row.string(5) ?? "")
                }
            )
        }
        var token = BindFacts.TokenFacts.notGiven
        var tokenRow: Int64?
        if let given = command.token {
            let tokens = try PreparedStatement.cached(
                db,
                "SELECT id, home_id, expires_at, used_at FROM pairing_token WHERE token = ?"
            )
            tokens.bind(.text(given))
            if let found = try tokens.first({ ($0.int64(0), $0.int64(1), $0.int64(2), !$0.isNull(3)) }) {
                token = .found(homeID: found.1, expiresAtMillis: found.2, used: found.3)
                tokenRow = found.0
            } else {
                token = .unknown
            }
        }
        let facts = BindFacts(
            deviceID: command.deviceID.rawValue,
            accountName: command.account,
            homeName: command.home,
            account: account,
            home: home,
            device: deviceRow?.facts,
            existing: deviceRow?.existing ?? nil,
            token: token
        )
        return (facts, deviceRow?.id, tokenRow)
    }

    /// Records a refused bind in the audit log and, for an ingest API command, its `ingest_audit`
    /// row linked to it (one small transaction of their own: the refused one rolled back).
    func recordRejection(_ command: BindCommand, _ error: NBGWError) throws(NBGWError) {
        let now = nowMillis()
        try write { db in try Registry.appendRejection(db, command, error, now: now) }
    }

    /// Writes a refused bind's audit row (and its `ingest_audit` row) inside the caller's transaction.
    static func appendRejection(_ db: Database, _ command: BindCommand, _ error: NBGWError, now: Int64) throws {
        let imei = try String.fetchOne(
            db.cachedStatement(sql: "SELECT imei FROM device WHERE device_id = ?"),
            arguments: [command.deviceID.rawValue]
        )
        try Registry.appendAudit(
            db,
            at: now,
            event: "bind_rejected",
            deviceID: command.deviceID.rawValue,
            imei: imei,
            account: command.account,
            home: command.home,
            source: command.source.rawValue,
            operator: command.operator,
            code: error.code.rawValue,
            origin: command.ingest
        )
        if let origin = command.ingest {
            let auditID = db.lastInsertedRowID
            let tokenID = try command.token.flatMap { token in
                try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT id FROM pairing_token WHERE token = ?"),
                    arguments: [token]
                )
            }
            try Registry.appendIngestAudit(
                db,
                at: now,
                auditID: auditID,
                kind: .bindRejected,
                origin: origin,
                command: command,
                tokenID: tokenID,
                code: error.code.rawValue,
                message: error.message
            )
        }
    }

    static func fetchBindings(
        _ db: Database,
        deviceID: String?,
        account: String?,
        limit: Int = 1000,
        after: String = ""
    ) throws -> [BindingRecord] {
        var sql = """
            SELECT d.device_id, d.imei, a.name AS account, h.name AS home, b.bound_at, b.source, b.operator
            FROM binding b JOIN device d ON d.id = b.device_row JOIN account a ON a.id = b.account_id
            JOIN home h ON h.id = b.home_id WHERE d.device_id > ?
            """
        var arguments: StatementArguments = [after]
        if let deviceID {
            sql += " AND d.device_id = ?"
            _ = arguments.append(contentsOf: [deviceID])
        }
        if let account {
            sql += " AND a.name = ?"
            _ = arguments.append(contentsOf: [account])
        }
        sql += " ORDER BY d.device_id LIMIT ?"
        _ = arguments.append(contentsOf: [limit])
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            BindingRecord(
                deviceID: row["device_id"],
                imei: row["imei"],
                account: row["account"],
                home: row["home"],
                boundAt: Date(millis: row["bound_at"]),
                source: BindingSource(rawValue: row["source"]) ?? .cli,
                operator: row["operator"]
            )
        }
    }
}
