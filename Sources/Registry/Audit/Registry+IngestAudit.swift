import Foundation
import GRDB
import NBGWCore

extension Registry {
    /// What an ingest API request did, for ``recordIngest(_:)``.
    public struct IngestEvent: Sendable, Equatable {
        public enum Kind: String, Sendable, Codable {
            case bind
            case bindUnchanged = "bind_unchanged"
            case bindRejected = "bind_rejected"
            case unbind
            case unbindRejected = "unbind_rejected"
            case tokenCreate = "token_create"
        }

        public var kind: Kind
        /// The API key's name (also the `operator` of the binding and its audit row).
        public var apiKey: String
        /// The client's address as the server saw it (`ip:port`).
        public var clientAddress: String
        public var deviceID: String?
        public var account: String?
        public var home: String?
        /// The pairing token the request named (only its row id is stored, never the token).
        public var token: String?
        public var code: String?
        public var message: String?

        public init(
            kind: Kind,
            apiKey: String,
            clientAddress: String,
            deviceID: String? = nil,
            account: String? = nil,
            home: String? = nil,
            token: String? = nil,
            code: String? = nil,
            message: String? = nil
        ) {
            self.kind = kind
            self.apiKey = apiKey
            self.clientAddress = clientAddress
            self.deviceID = deviceID
            self.account = account
            self.home = home
            self.token = token
            self.code = code
            self.message = message
        }
    }

    /// One entry of the ingest trail: an `ingest_audit` row, linked to its audit row when it has
    /// one, or (migration v6) the audit row of a successful ingest API bind, which carries the key's
    /// name and the client's address itself.
    public struct IngestAuditEntry: Sendable, Equatable, Codable {
        /// The `ingest_audit` row's id; nil for an entry that is an audit row (``auditID`` says which).
        public var id: Int64?
        public var at: Date
        public var auditID: Int64?
        public var event: String
        public var apiKey: String
        public var clientAddress: String
        public var deviceID: String?
        public var account: String?
        public var home: String?
        public var code: String?
        public var message: String?

        enum CodingKeys: String, CodingKey {
            case auditID = "auditId"
            case deviceID = "deviceId"
            case id, at, event, apiKey, clientAddress, account, home, code, message
        }
    }

    /// A pairing token's result (the seed's "query pairing result"): the device bound with it and
    /// the ingest API's refused attempts with their codes.
    public struct PairingResult: Sendable, Equatable {
        public var token: PairingToken
        /// The binding made with this token, if it still stands.
        public var binding: BindingRecord?
        /// Refused ingest API binds that named this token, oldest first.
        public var failures: [IngestAuditEntry]
    }

    /// Appends the `ingest_audit` row of an ingest API bind inside the bind's own transaction
    /// (``bindRules(_:_:now:owners:)``, ``recordRejection(_:_:)``), linked to the audit row it wrote.
    static func appendIngestAudit(
        _ db: Database,
        at now: Int64,
        auditID: Int64?,
        kind: IngestEvent.Kind,
        origin: BindCommand.IngestOrigin,
        command: BindCommand,
        tokenID: Int64?,
        code: String? = nil,
        message: String? = nil
    ) throws {
        try insertIngestAudit(
            db,
            at: now,
            auditID: auditID,
            kind: kind,
            apiKey: origin.apiKey,
            clientAddress: origin.clientAddress,
            deviceID: command.deviceID.rawValue,
            account: command.account,
            home: command.home,
            tokenID: tokenID,
            code: code,
            message: message
        )
    }

    /// The one INSERT into `ingest_audit` (prepared once per connection). The client address is cut
    /// to 128 characters and the message to 1024, the table's limits.
    static func insertIngestAudit(
        _ db: Database,
        at now: Int64,
        auditID: Int64?,
        kind: IngestEvent.Kind,
        apiKey: String,
        clientAddress: String,
        deviceID: String?,
        account: String?,
        home: String?,
        tokenID: Int64?,
        code: String?,
        message: String?
    ) throws {
        let insert = try PreparedStatement.cached(
            db,
            """
            INSERT INTO ingest_audit
                (at, audit_id, event, api_key, client_address, device_id, account, home, token_id, code, message)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        )
        insert.bind(
            .integer(now),
            .integer(auditID),
            .text(kind.rawValue),
            .text(apiKey),
            .text(String(clientAddress.prefix(128))),
            .text(deviceID),
            .text(account),
            .text(home),
            .integer(tokenID),
            .text(code),
            .text(message.map { String($0.prefix(1024)) })
        )
        try insert.run()
    }

    static func ingestAuditEntry(_ row: Row) -> IngestAuditEntry {
        IngestAuditEntry(
            id: row["id"],
            at: Date(millis: row["at"]),
            auditID: row["audit_id"],
            event: row["event"],
            apiKey: row["api_key"],
            clientAddress: row["client_address"],
            deviceID: row["device_id"],
            account: row["account"],
            home: row["home"],
            code: row["code"],
            message: row["message"]
        )
    }
}

extension Registry {
    /// The rule account and home names follow (1 to 64 characters, no control characters, no
    /// surrounding spaces), for callers that validate input before touching the store.
    public static func validateEntityName(_ name: String, what: String) throws(NBGWError) {
        // Fast path for printable ASCII (every name in practice), which the general rule accepts
        // exactly when it has 1 to 64 characters and no space at either end; anything else, valid
        // or not, gets the general rule (Foundation's trimming is most of a bind's validation cost).
        let bytes = name.utf8
        if (1...64).contains(bytes.count), bytes.first != 0x20, bytes.last != 0x20,
            bytes.allSatisfy({ (0x20...0x7E).contains($0) })
        {
            return
        }
        try validateName(name, what: what)
    }
}

extension Registry.Audit {
    /// Appends the ingest trail row for a request whose change did not write it itself, and links it
    /// to the audit row the change wrote: for `bind`/`unbind` the device's latest such row; for
    /// `bind_rejected` the oldest HTTP rejection of the device by this key with this code not linked
    /// yet. Binds and tokens carrying their ``BindCommand/IngestOrigin`` write their row in their own
    /// transaction instead; the ingest API uses this for unbinds and for binds refused before the
    /// store (a label that does not resolve).
    public func recordIngest(_ event: Registry.IngestEvent) throws(NBGWError) {
        let now = registry.nowMillis()
        try registry.write { db in
            let auditID: Int64? =
                switch event.kind {
                case .bind, .unbind:
                    try Int64.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT id FROM audit_log WHERE device_id = ? AND event = ? AND source = 'http'
                                AND operator = ? ORDER BY id DESC LIMIT 1
                                """
                        ),
                        arguments: [event.deviceID, event.kind.rawValue, event.apiKey]
                    )
                case .bindRejected where event.deviceID != nil:
                    try Int64.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT a.id FROM audit_log a WHERE a.device_id = ? AND a.event = 'bind_rejected'
                                AND a.source = 'http' AND a.operator = ? AND a.code = ?
                                AND NOT EXISTS (SELECT 1 FROM ingest_audit i WHERE i.audit_id = a.id)
                                ORDER BY a.id LIMIT 1
                                """
                        ),
                        arguments: [event.deviceID, event.apiKey, event.code]
                    )
                default: nil
                }
            let tokenID: Int64? =
                if let token = event.token {
                    try Int64.fetchOne(
                        db.cachedStatement(sql: "SELECT id FROM pairing_token WHERE token = ?"),
                        arguments: [token]
                    )
                } else {
                    nil
                }
            try Registry.insertIngestAudit(
                db,
                at: now,
                auditID: auditID,
                kind: event.kind,
                apiKey: event.apiKey,
                clientAddress: event.clientAddress,
                deviceID: event.deviceID,
                account: event.account,
                home: event.home,
                tokenID: tokenID,
                code: event.code,
                message: event.message
            )
        }
    }

    /// The ingest trail, oldest first, optionally for one device. Entries of the same millisecond:
    /// those with an audit row in that row's order, then the others in theirs.
    public func ingestTrail(deviceID: String? = nil, limit: Int = 1000) throws(NBGWError) -> [Registry.IngestAuditEntry]
    {
        // The successful binds' entries are their audit rows (migration v6); an audit row that has
        // an ingest_audit row of its own (a bind recorded before v6, a refusal) appears once, as that.
        let filter = deviceID == nil ? "" : "AND device_id = :device"
        let sql = """
            SELECT * FROM (
                SELECT id, at, audit_id, event, api_key, client_address, device_id, account, home, code, message
                FROM ingest_audit WHERE 1 \(filter)
                UNION ALL
                SELECT NULL, at, id, event, api_key, client_address, device_id, account, home, NULL, NULL
                FROM audit_log a WHERE event = 'bind' AND api_key IS NOT NULL \(filter)
                AND NOT EXISTS (SELECT 1 FROM ingest_audit i WHERE i.audit_id = a.id)
            )
            ORDER BY at, audit_id IS NULL, audit_id, id LIMIT :limit
            """
        return try registry.read { db in
            var arguments: StatementArguments = ["limit": limit]
            if let deviceID { _ = arguments.append(contentsOf: ["device": deviceID]) }
            return try Row.fetchAll(db, sql: sql, arguments: arguments)
                .map(Registry.ingestAuditEntry)
        }
    }

    /// The pairing result for `token`, or nil when no such token was issued.
    public func pairingResult(token: String) throws(NBGWError) -> Registry.PairingResult? {
        guard let record = try registry.directory.token(token) else { return nil }
        return try registry.read { db in
            let tokenID = try Int64.fetchOne(
                db,
                sql: "SELECT id FROM pairing_token WHERE token = ?",
                arguments: [token]
            )
            let binding = try Row.fetchOne(
                db,
                sql: """
                    SELECT d.device_id, d.imei, a.name AS account, h.name AS home, b.bound_at, b.source, b.operator
                    FROM binding b JOIN device d ON d.id = b.device_row JOIN account a ON a.id = b.account_id
                    JOIN home h ON h.id = b.home_id WHERE b.token_id = ?
                    """,
                arguments: [tokenID]
            ).map { row in
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
            let failures = try Row.fetchAll(
                db,
                sql: "SELECT * FROM ingest_audit WHERE token_id = ? AND event = 'bind_rejected' ORDER BY id LIMIT 1000",
                arguments: [tokenID]
            ).map(Registry.ingestAuditEntry)
            return Registry.PairingResult(token: record, binding: binding, failures: failures)
        }
    }
}
