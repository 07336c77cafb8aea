import CloudServer
import Foundation
import PostgresNIO
import TuyaCloud

/// The API's calls on PostgreSQL. Reads decide only what to answer; every write that two nodes
/// could race on is one conditional statement whose outcome is read from its `RETURNING` rows.
extension FleetStore: CloudServerStore {
    public func credential(clientID: String) async throws -> CloudCredential? {
        guard !clientID.hasNUL else { return nil }
        if let cached = credentialCache.lookup(clientID) { return cached }
        let logger = self.logger
        let rows = try await client.withConnection { connection in
            try await connection.all(
                """
                SELECT g.tenant_id, g.name, c.sealed_secret, g.role FROM gateway g
                JOIN credential c ON c.client_id = g.client_id
                WHERE g.client_id = \(clientID) ORDER BY c.slot
                """,
                as: (String, String, Data, String).self,
                logger: logger
            )
        }
        guard let first = rows.first else { return nil }
        let signers = try rows.map { row in
            try TuyaSigner(clientID: clientID, secret: secrets.unseal(Array(row.2), clientID: clientID))
        }
        let credential = CloudCredential(
            principal: CloudPrincipal(
                tenant: first.0,
                gateway: first.1,
                clientID: clientID,
                role: CloudRole(rawValue: first.3) ?? .gateway
            ),
            signers: signers
        )
        credentialCache.store(credential)
        return credential
    }

    public func grantToken(
        _ principal: CloudPrincipal,
        now: Int64,
        lifetime: Duration
    ) async throws
        -> CloudAPI.TokenResult
    {
        let logger = self.logger
        return try await transaction { connection in
            try await FleetStore.insertToken(connection, principal, now: now, lifetime: lifetime, logger: logger)
        }
    }

    public func refreshToken(
        _ principal: CloudPrincipal,
        refreshToken: String,
        now: Int64,
        lifetime: Duration
    ) async throws -> Result<CloudAPI.TokenResult, CloudServerFailure> {
        guard !refreshToken.hasNUL else {
            return .failure(CloudServerFailure(TuyaErrorCode.tokenInvalid, "token invalid: unknown refresh token"))
        }
        let logger = self.logger
        let refreshed = try await transaction {
            connection -> Result<(CloudAPI.TokenResult, String), CloudServerFailure> in
            // Spent once: the conditional update is the only way to a new pair.
            let spent = try await connection.first(
                """
                UPDATE access_token SET revoked = true
                WHERE refresh_token = \(refreshToken) AND client_id = \(principal.clientID) AND NOT revoked
                RETURNING access_token
                """,
                as: String.self,
                logger: logger
            )
            guard let spent else {
                let known = try await connection.run(
                    """
                    SELECT 1 FROM access_token
                    WHERE refresh_token = \(refreshToken) AND client_id = \(principal.clientID)
                    """,
                    logger: logger
                )
                return .failure(
                    known == 1
                        ? CloudServerFailure(
                            TuyaErrorCode.tokenStatusInvalid,
                            "token status invalid: refresh token already used"
                        )
                        : CloudServerFailure(TuyaErrorCode.tokenInvalid, "token invalid: unknown refresh token")
                )
            }
            let pair = try await FleetStore.insertToken(
                connection,
                principal,
                now: now,
                lifetime: lifetime,
                logger: logger
            )
            return .success((pair, spent))
        }
        // The replaced token is refused on this node from now on, on other nodes within
        // FleetTokenCache.lifetime.
        if case .success((_, let spent)) = refreshed { tokenCache.remove(spent, clientID: principal.clientID) }
        return refreshed.map(\.0)
    }

    static func insertToken(
        _ connection: PostgresConnection,
        _ principal: CloudPrincipal,
        now: Int64,
        lifetime: Duration,
        logger: Logger
    ) async throws -> CloudAPI.TokenResult {
        let access = CloudServerRules.randomHex(16)
        let refresh = CloudServerRules.randomHex(16)
        let seconds = Int(lifetime.components.seconds)
        let uid = principal.tenant + "/" + principal.gateway
        let expires = now + max(1, Int64(seconds)) * 1000
        try await connection.run(
            """
            INSERT INTO access_token (access_token, refresh_token, client_id, uid, issued_at, expires_at)
            VALUES (\(access), \(refresh), \(principal.clientID), \(uid), \(now), \(expires))
            """,
            logger: logger
        )
        return CloudAPI.TokenResult(accessToken: access, expireTime: seconds, refreshToken: refresh, uid: uid)
    }

    public func checkAccessToken(
        _ principal: CloudPrincipal,
        accessToken: String,
        now: Int64
    ) async throws
        -> CloudServerFailure?
    {
        guard !accessToken.hasNUL else { return CloudServerFailure(TuyaErrorCode.tokenInvalid, "token invalid") }
        let expiresAt: Int64
        if let cached = tokenCache.expiry(of: accessToken, clientID: principal.clientID) {
            expiresAt = cached
        } else {
            let logger = self.logger
            counters.roundTrip()
            let row = try await client.withConnection { connection in
                try await connection.prepared(
                    FleetStatements.AccessToken(accessToken: accessToken, clientID: principal.clientID),
                    logger: logger
                ).first
            }
            guard let (stored, revoked) = row else {
                return CloudServerFailure(TuyaErrorCode.tokenInvalid, "token invalid")
            }
            if revoked { return CloudServerFailure(TuyaErrorCode.tokenInvalid, "token invalid: replaced by a refresh") }
            tokenCache.store(accessToken, clientID: principal.clientID, expiresAt: stored)
            expiresAt = stored
        }
        if now >= expiresAt { return CloudServerFailure(TuyaErrorCode.tokenExpired, "token is expired") }
        return nil
    }

    public func modules(
        _ principal: CloudPrincipal,
        after: String,
        limit: Int
    ) async throws
        -> CloudAPI.Page<CloudAPI.Module>
    {
        let after = after.withoutNUL
        let logger = self.logger
        let rows = try await client.withConnection { connection in
            try await connection.all(
                """
                SELECT device_id, imei, label_code, product_id, registered_by = \(principal.gateway) FROM device
                WHERE tenant_id = \(principal.tenant) AND device_id > \(after) ORDER BY device_id LIMIT \(limit + 1)
                """,
                as: (String, String, String, String?, Bool).self,
                logger: logger
            )
        }
        let list = rows.prefix(limit).map {
            CloudAPI.Module(
                deviceID: $0.0,
                imei: $0.1,
                labelCode: $0.2,
                productID: $0.3,
                origin: $0.4 ? CloudAPI.Module.thisGateway : CloudAPI.Module.otherGateway
            )
        }
        return CloudAPI.Page(list: Array(list), hasMore: rows.count > limit, lastRowKey: list.last?.deviceID)
    }

    public func module(_ principal: CloudPrincipal, labelCode: String) async throws -> CloudAPI.Module? {
        guard !labelCode.hasNUL else { return nil }
        let logger = self.logger
        // A label printed by any gateway of the tenant resolves here, whichever registered it.
        let row = try await client.withConnection { connection in
            try await connection.first(
                """
                SELECT device_id, imei, label_code, product_id FROM device
                WHERE label_code = \(labelCode) AND tenant_id = \(principal.tenant)
                """,
                as: (String, String, String, String?).self,
                logger: logger
            )
        }
        return row.map { CloudAPI.Module(deviceID: $0.0, imei: $0.1, labelCode: $0.2, productID: $0.3) }
    }

    public func pairingResult(
        _ principal: CloudPrincipal,
        token: String
    ) async throws
        -> Result<CloudAPI.PairingResult, CloudServerFailure>
    {
        guard !token.hasNUL else {
            return .failure(
                CloudServerFailure(TuyaErrorCode.pairingTokenInvalid, "pairing token invalid: unknown token")
            )
        }
        let logger = self.logger
        return try await client.withConnection { connection in
            let known = try await connection.run(
                "SELECT 1 FROM pairing_token WHERE token = \(token) AND tenant_id = \(principal.tenant)",
                logger: logger
            )
            guard known == 1 else {
                return .failure(
                    CloudServerFailure(TuyaErrorCode.pairingTokenInvalid, "pairing token invalid: unknown token")
                )
            }
            let rows = try await connection.all(
                """
                SELECT o.device_id, o.success, o.error_code, o.error_msg, d.product_id
                FROM pairing_outcome o LEFT JOIN device d ON d.device_id = o.device_id
                WHERE o.token = \(token) ORDER BY o.at, o.device_id
                """,
                as: (String, Bool, String?, String?, String?).self,
                logger: logger
            )
            var success: [CloudAPI.PairingResult.SuccessDevice] = []
            var failed: [CloudAPI.PairingResult.ErrorDevice] = []
            for row in rows {
                if row.1 {
                    success.append(.init(deviceID: row.0, productID: row.4))
                } else {
                    failed.append(.init(deviceID: row.0, errorCode: row.2 ?? "", errorMsg: row.3 ?? ""))
                }
            }
            return .success(CloudAPI.PairingResult(successDevices: success, errorDevices: failed))
        }
    }

    public func bindings(
        _ principal: CloudPrincipal,
        after: String,
        limit: Int
    ) async throws
        -> CloudAPI.Page<CloudAPI.Binding>
    {
        let after = after.withoutNUL
        let logger = self.logger
        let rows = try await client.withConnection { connection in
            try await connection.all(
                """
                SELECT device_id, uid, home, bound_at FROM binding
                WHERE tenant_id = \(principal.tenant) AND device_id > \(after) ORDER BY device_id LIMIT \(limit + 1)
                """,
                as: (String, String, String, Int64).self,
                logger: logger
            )
        }
        let list = rows.prefix(limit).map { CloudAPI.Binding(deviceID: $0.0, uid: $0.1, assetID: $0.2, boundAt: $0.3) }
        return CloudAPI.Page(list: Array(list), hasMore: rows.count > limit, lastRowKey: list.last?.deviceID)
    }
}

extension String {
    /// Whether the text holds U+0000, which PostgreSQL's `text` cannot (22021): no stored token,
    /// label, id or name has one, so a lookup of such text finds nothing without asking.
    var hasNUL: Bool { utf8.contains(0) }

    /// The text without U+0000 (a page's `last_row_key`, compared, never looked up).
    var withoutNUL: String { hasNUL ? String(decoding: utf8.filter { $0 != 0 }, as: UTF8.self) : self }
}
