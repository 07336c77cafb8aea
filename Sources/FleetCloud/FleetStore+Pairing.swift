import CloudServer
import PostgresNIO
import TuyaCloud

extension FleetStore {
    /// A pairing token for a home of the tenant: the home is created for `uid` on first use (one
    /// `INSERT … ON CONFLICT DO NOTHING`); a home of another account is refused (3006).
    static func createPairingToken(
        _ request: CloudAPI.PairingTokenRequest,
        _ context: FleetMutationContext
    ) async throws -> String {
        let (connection, logger, tenant, now) = (context.connection, context.logger, context.principal.tenant, context.now)
        try await connection.run(
            """
            INSERT INTO home (tenant_id, name, owner_uid, created_at) VALUES (\(tenant), \(request.assetID), \(request.uid), \(now))
            ON CONFLICT (tenant_id, name) DO NOTHING
            """,
            logger: logger
        )
        let owner = try await connection.first(
            "SELECT owner_uid FROM home WHERE tenant_id = \(tenant) AND name = \(request.assetID)",
            as: String.self,
            logger: logger
        )
        guard owner == request.uid else { throw FleetRollback(CloudServerRules.homeOfAnotherAccount) }
        let token = CloudServerRules.mintPairingToken()
        let seconds = max(1, Int(context.settings.pairingTokenLifetime.components.seconds))
        try await connection.run(
            """
            INSERT INTO pairing_token (token, tenant_id, home, uid, created_at, expires_at)
            VALUES (\(token), \(tenant), \(request.assetID), \(request.uid), \(now), \(now + Int64(seconds) * 1000))
            """,
            logger: logger
        )
        return try CloudJSON.string(
            CloudAPI.PairingTokenResult(token: token, expireTime: seconds, region: context.settings.region)
        )
    }

    /// Strong binding, fleet-wide, in statements no second node can slip between: the binding is
    /// one `INSERT … ON CONFLICT (device_id) DO NOTHING`, the token's use one `UPDATE … WHERE
    /// used_at IS NULL AND expires_at >= now`; a bind whose token was used meanwhile rolls back.
    /// Refusals about the device (unknown, bound to another owner) are kept as the token's pairing
    /// outcome and the token stays usable, as the emulator does.
    static func bind(_ request: CloudAPI.BindRequest, _ context: FleetMutationContext) async throws -> String {
        let (connection, logger, principal, now) = (context.connection, context.logger, context.principal, context.now)
        // Text with U+0000 matches no stored token, device or name (PostgreSQL refuses to compare it).
        guard !request.token.hasNUL else {
            throw FleetRollback(CloudServerRules.tokenRefusal(nil, for: request, now: now)!)
        }
        guard !request.uid.hasNUL, !request.assetID.hasNUL else {
            throw FleetRollback(
                CloudServerFailure(TuyaErrorCode.pairingTokenInvalid, "pairing token invalid: issued for another home or account")
            )
        }
        let token = try await connection.first(
            """
            SELECT home, uid, expires_at, used_at IS NOT NULL FROM pairing_token
            WHERE token = \(request.token) AND tenant_id = \(principal.tenant)
            """,
            as: (String, String, Int64, Bool).self,
            logger: logger
        )
        let state = token.map { CloudServerRules.PairingTokenState(home: $0.0, uid: $0.1, expiresAt: $0.2, used: $0.3) }
        if let refusal = CloudServerRules.tokenRefusal(state, for: request, now: now) { throw FleetRollback(refusal) }
        func refuse(_ failure: CloudServerFailure, conflict: Bool = false) -> FleetRollback {
            FleetRollback(
                failure,
                record: .init(token: request.token, deviceID: request.deviceID, failure: failure, conflict: conflict)
            )
        }
        // Unknown, and not kept as an outcome: PostgreSQL's text cannot hold it.
        guard !request.deviceID.hasNUL else { throw FleetRollback(CloudServerRules.unknownDevice) }
        guard
            let (deviceTenant, frozenReason) = try await connection.first(
                "SELECT tenant_id, frozen_reason FROM device WHERE device_id = \(request.deviceID)",
                as: (String, String?).self,
                logger: logger
            )
        else { throw refuse(CloudServerRules.unknownDevice) }
        guard deviceTenant == principal.tenant else {
            context.counters.conflict("bound_other_tenant")
            throw refuse(CloudServerRules.alreadyBound(), conflict: true)
        }
        // Why a read, not a condition on the insert: a freeze never reads bindings, so a bind that
        // read "not frozen" before a freeze committed is the same as the bind before the freeze
        // (the device ends bound and frozen): every interleaving has a serial order.
        if let frozenReason { throw refuse(CloudServerRules.frozen(reason: frozenReason)) }
        // Why a loop: the owner read after a lost insert may have unbound meanwhile; then the
        // insert is tried again (twice is enough: an unbind between two statements is rare).
        for _ in 0..<3 {
            let boundAt = try await connection.first(
                """
                INSERT INTO binding (device_id, tenant_id, uid, home, token, gateway, bound_at)
                VALUES (\(request.deviceID), \(principal.tenant), \(request.uid), \(request.assetID), \(request.token),
                    \(principal.gateway), \(now))
                ON CONFLICT (device_id) DO NOTHING RETURNING bound_at
                """,
                as: Int64.self,
                logger: logger
            )
            if let boundAt {
                let used = try await connection.run(
                    """
                    UPDATE pairing_token SET used_at = \(now), used_by = \(request.deviceID)
                    WHERE token = \(request.token) AND used_at IS NULL AND expires_at >= \(now) RETURNING 1
                    """,
                    logger: logger
                )
                guard used == 1 else {
                    // Another bind used the token since it was read: this one did not happen.
                    context.counters.conflict("token_used")
                    throw FleetRollback(
                        CloudServerFailure(TuyaErrorCode.pairingTokenExpired, "pairing token expired: already used")
                    )
                }
                try await connection.run(
                    """
                    INSERT INTO pairing_outcome (token, device_id, success, error_code, error_msg, at)
                    VALUES (\(request.token), \(request.deviceID), true, NULL, NULL, \(now))
                    ON CONFLICT (token, device_id) DO UPDATE
                    SET success = true, error_code = NULL, error_msg = NULL, at = EXCLUDED.at
                    """,
                    logger: logger
                )
                try await context.event("bound", device: request.deviceID, detail: request.uid)
                return try CloudJSON.string(
                    CloudAPI.BindResult(deviceID: request.deviceID, status: "bound", boundAt: boundAt)
                )
            }
            guard
                let owner = try await connection.first(
                    "SELECT uid, home, gateway, bound_at FROM binding WHERE device_id = \(request.deviceID)",
                    as: (String, String, String, Int64).self,
                    logger: logger
                )
            else { continue }
            if owner.0 == request.uid, owner.1 == request.assetID {
                return try CloudJSON.string(
                    CloudAPI.BindResult(deviceID: request.deviceID, status: "unchanged", boundAt: owner.3)
                )
            }
            context.counters.conflict("bound_same_tenant")
            throw refuse(CloudServerRules.alreadyBound(ownerUID: owner.0, ownerGateway: owner.2), conflict: true)
        }
        throw FleetError("device \(request.deviceID) was bound and unbound repeatedly during one bind")
    }

    static func unbind(_ deviceID: String, _ context: FleetMutationContext) async throws -> String {
        let (connection, logger, tenant) = (context.connection, context.logger, context.principal.tenant)
        let removed = try await connection.run(
            "DELETE FROM binding WHERE device_id = \(deviceID) AND tenant_id = \(tenant) RETURNING 1",
            logger: logger
        )
        guard removed == 1 else {
            let known = try await connection.first(
                "SELECT tenant_id FROM device WHERE device_id = \(deviceID)",
                as: String.self,
                logger: logger
            )
            guard known == tenant else { throw FleetRollback(CloudServerRules.unknownDevice) }
            throw FleetRollback(CloudServerFailure(TuyaErrorCode.deviceNotBound, "device not bound"))
        }
        try await context.event("unbound", device: deviceID)
        return try CloudJSON.string(CloudAPI.UnbindResult(deviceID: deviceID, status: "unbound"))
    }
}
