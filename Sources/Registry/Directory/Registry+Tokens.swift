import Foundation
import GRDB
import NBGWCore
import Pairing

extension Registry.Directory {
    /// Issues a pairing token for `home`, valid for ``BindingRules/pairingTokenLifetime``.
    ///
    /// - Parameter ingest: who asked over the ingest API; its `ingest_audit` row (linked to the
    ///   `token_create` audit row) is written in the same transaction.
    public func createToken(
        home: String,
        operator: String? = nil,
        ingest: BindCommand.IngestOrigin? = nil
    ) throws(NBGWError) -> PairingToken {
        let now = registry.nowMillis()
        return try registry.write { db in
            let homeID = try Registry.requireHomeID(db, home)
            let (token, rowID) = try Registry.insertToken(
                db,
                homeID: homeID,
                home: home,
                now: now,
                operator: `operator`
            )
            if let ingest {
                try Registry.insertIngestAudit(
                    db,
                    at: now,
                    auditID: db.lastInsertedRowID,
                    kind: .tokenCreate,
                    apiKey: ingest.apiKey,
                    clientAddress: ingest.clientAddress,
                    deviceID: nil,
                    account: nil,
                    home: home,
                    tokenID: rowID,
                    code: nil,
                    message: nil
                )
            }
            return token
        }
    }

    /// The pairing token `token`, used or not, nil when there is none.
    public func token(_ token: String) throws(NBGWError) -> PairingToken? {
        try registry.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT t.token, h.name AS home, t.created_at, t.expires_at, t.used_at, d.device_id
                    FROM pairing_token t JOIN home h ON h.id = t.home_id
                    LEFT JOIN device d ON d.id = t.used_by_device WHERE t.token = ?
                    """,
                arguments: [token]
            ).map { row in
                PairingToken(
                    token: row["token"],
                    home: row["home"],
                    createdAt: Date(millis: row["created_at"]),
                    expiresAt: Date(millis: row["expires_at"]),
                    usedAt: (row["used_at"] as Int64?).map(Date.init(millis:)),
                    usedByDevice: row["device_id"]
                )
            }
        }
    }
}

extension Registry {
    /// Inserts a fresh token and returns it with its row id.
    static func insertToken(
        _ db: Database,
        homeID: Int64,
        home: String,
        now: Int64,
        operator: String?
    ) throws
        -> (token: PairingToken, rowID: Int64)
    {
        let token = generateToken()
        let expires = now + BindingRules.pairingTokenLifetime.milliseconds
        let insert = try PreparedStatement.cached(
            db,
            "INSERT INTO pairing_token (token, home_id, created_at, expires_at) VALUES (?, ?, ?, ?)"
        )
        insert.bind(.text(token), .integer(homeID), .integer(now), .integer(expires))
        try insert.run()
        let rowID = db.lastInsertedRowID
        // The token itself is a secret for its 10 minutes: the audit log records only its row id.
        try appendAudit(
            db,
            at: now,
            event: "token_create",
            home: home,
            operator: `operator`,
            detail: "token#\(rowID)"
        )
        let record = PairingToken(
            token: token,
            home: home,
            createdAt: Date(millis: now),
            expiresAt: Date(millis: expires)
        )
        return (record, rowID)
    }

    /// 20 characters from a 62-letter alphabet (~119 bits) from the system CSPRNG (getrandom(2)).
    /// Each 64-bit draw yields ten 6-bit values; values 62 and 63 are dropped (rejection sampling,
    /// so every letter stays equally likely): about 3 system calls per token instead of 20.
    static func generateToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var letters: [UInt8] = []
        letters.reserveCapacity(20)
        while letters.count < 20 {
            var word = generator.next()
            for _ in 0..<10 where letters.count < 20 {
                let index = Int(word & 63)
                word >>= 6
                if index < tokenAlphabet.count { letters.append(tokenAlphabet[index]) }
            }
        }
        return String(decoding: letters, as: UTF8.self)
    }

    private static let tokenAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    static func requireHomeID(_ db: Database, _ home: String) throws -> Int64 {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM home WHERE name = ?", arguments: [home]) else {
            throw NBGWError(
                .unknownHome,
                "no home \(home.escapedForDisplay()); list homes with `nbgw homes list` or add one with "
                    + "`nbgw homes add NAME --owner ACCOUNT`"
            )
        }
        return id
    }
}
