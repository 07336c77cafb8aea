import DeviceIdentity
import Foundation
import GRDB
import Pairing

extension Registry {
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
        // One implementation: the cloud-synced variant (Registry+CloudSync) with nothing to enqueue.
        try bind(command, timeout: timeout) { _ in nil }.change
    }

    /// Runs `body` on the writer with SQLite's busy timeout set to `timeout` (restored after), and
    /// reports an exhausted wait as `TIMEOUT`.
    func withBusyTimeout<T>(_ timeout: Duration, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                // PRAGMA takes no bound parameters; the value is an integer we computed.
                try db.execute(sql: "PRAGMA busy_timeout = \(max(0, timeout.milliseconds))")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = \(busyTimeout.milliseconds)") }
                return try body(db)
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            throw NBGWError(
                .timeout,
                "activation did not finish within \(timeout.timeInterval) s: the store \(path) stayed locked by "
                    + "another writer; retry, or raise --timeout"
            )
        }
    }

    static func bindRules(_ db: Database, _ command: BindCommand, now: Int64) throws -> BindOutcome {
        let device = command.deviceID.rawValue
        let facts = try gatherFacts(db, command)
        let decision = try BindingRules.evaluate(facts.facts, nowMillis: now)
        let imei = facts.facts.device?.imei ?? ""
        if decision == .unchanged {
            let existing = try Row.fetchOne(
                db,
                sql: "SELECT bound_at, source, operator FROM binding WHERE device_row = ?",
                arguments: [facts.deviceRow]
            )!
            return BindOutcome(
                status: .unchanged,
                binding: BindingRecord(
                    deviceID: device,
                    imei: imei,
                    account: command.account,
                    home: command.home,
                    boundAt: Date(millis: existing["bound_at"]),
                    source: BindingSource(rawValue: existing["source"]) ?? .cli,
                    operator: existing["operator"]
                )
            )
        }
        let accountID = facts.facts.account!.id
        let homeID = facts.facts.home!.id
        let tokenID =
            try facts.tokenRow
            ?? insertToken(db, homeID: homeID, home: command.home, now: now, operator: command.operator).rowID
        try db.execute(
            sql: "UPDATE pairing_token SET used_at = ?, used_by_device = ? WHERE id = ?",
            arguments: [now, facts.deviceRow, tokenID]
        )
        try db.execute(
            sql: """
                INSERT INTO binding (device_row, account_id, home_id, token_id, bound_at, source, operator)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [facts.deviceRow, accountID, homeID, tokenID, now, command.source.rawValue, command.operator]
        )
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
            detail: "token#\(tokenID)"
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
        _ command: BindCommand
    ) throws
        -> (facts: BindFacts, deviceRow: Int64?, tokenRow: Int64?)
    {
        let account = try Row.fetchOne(
            db,
            sql: "SELECT id, role FROM account WHERE name = ?",
            arguments: [command.account]
        ).map { BindFacts.AccountFacts(id: $0["id"], isOwner: $0["role"] as String == Account.Role.owner.rawValue) }
        let home = try Row.fetchOne(
            db,
            sql: "SELECT id, owner_account_id FROM home WHERE name = ?",
            arguments: [command.home]
        ).map { row in
            BindFacts.HomeFacts(
                id: row["id"],
                ownerAccountID: row["owner_account_id"],
                allowedProducts: try String.fetchAll(
                    db,
                    sql: "SELECT product_id FROM home_product WHERE home_id = ? ORDER BY product_id",
                    arguments: [row["id"] as Int64]
                )
            )
        }
        let deviceRow = try Row.fetchOne(
            db,
            sql: """
                SELECT d.id, d.imei, d.product_id, b.account_id, b.home_id, h.name AS home
                FROM device d LEFT JOIN binding b ON b.device_row = d.id LEFT JOIN home h ON h.id = b.home_id
                WHERE d.device_id = ?
                """,
            arguments: [command.deviceID.rawValue]
        )
        var token = BindFacts.TokenFacts.notGiven
        var tokenRow: Int64?
        if let given = command.token {
            if let row = try Row.fetchOne(
                db,
                sql: "SELECT id, home_id, expires_at, used_at FROM pairing_token WHERE token = ?",
                arguments: [given]
            ) {
                token = .found(
                    homeID: row["home_id"],
                    expiresAtMillis: row["expires_at"],
                    used: row["used_at"] as Int64? != nil
                )
                tokenRow = row["id"]
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
            device: deviceRow.map { BindFacts.DeviceFacts(imei: $0["imei"], productID: $0["product_id"]) },
            existing: deviceRow.flatMap { row in
                (row["account_id"] as Int64?).map {
                    BindFacts.ExistingBinding(accountID: $0, homeID: row["home_id"], homeName: row["home"])
                }
            },
            token: token
        )
        return (facts, deviceRow?["id"], tokenRow)
    }

    /// Records a refused bind in the audit log (its own small transaction: the refused one rolled back).
    func recordRejection(_ command: BindCommand, _ error: NBGWError) throws(NBGWError) {
        let now = nowMillis()
        try write { db in
            let imei = try String.fetchOne(
                db,
                sql: "SELECT imei FROM device WHERE device_id = ?",
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
                code: error.code.rawValue
            )
        }
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
        // One implementation: the cloud-synced variant with nothing to enqueue.
        try unbind(deviceID: deviceID, source: source, operator: `operator`) { _ in nil }.change
    }

    /// Bindings, by device id, optionally for one account; `limit` at a time after `afterDeviceID`.
    public func bindings(
        account: String? = nil,
        limit: Int = 1000,
        after afterDeviceID: String = ""
    )
        throws(NBGWError) -> [BindingRecord]
    {
        try read { db in
            try Registry.fetchBindings(db, deviceID: nil, account: account, limit: limit, after: afterDeviceID)
        }
    }

    public func binding(deviceID: String) throws(NBGWError) -> BindingRecord? {
        try read { db in try Registry.fetchBindings(db, deviceID: deviceID, account: nil).first }
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
