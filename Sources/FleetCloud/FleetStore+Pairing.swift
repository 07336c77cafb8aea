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
        let (connection, logger, tenant, now) = (
            context.connection, context.logger, context.principal.tenant, context.now
        )
        let owner = try await homeOwner(request.assetID, creatingFor: request.uid, context)
        guard owner == request.uid else { throw FleetRollback(CloudServerRules.homeOfAnotherAccount) }
        let token = CloudServerRules.mintPairingToken()
        let seconds = max(1, Int(context.settings.pairingTokenLifetime.components.seconds))
        let json = try CloudJSON.string(
            CloudAPI.PairingTokenResult(token: token, expireTime: seconds, region: context.settings.region)
        )
        // The token and the key's answer in one statement.
        let (client, key) = context.answerKey
        _ = try await connection.prepared(
            FleetStatements.InsertPairingToken(
                answer: json,
                clientID: client,
                key: key,
                token: token,
                tenant: tenant,
                home: request.assetID,
                uid: request.uid,
                now: now,
                expiresAt: now + Int64(seconds) * 1000
            ),
            logger: logger
        )
        context.answer.stored = true
        return json
    }

    /// The owner of the tenant's home `home`, created for `uid` when the tenant has none of that
    /// name: one statement (an insert that may find the home, and the home it found), with the
    /// key's claim first when the mutation claims in its first statement (``FleetKeyTaken`` when
    /// the key was claimed before: then no home is created). Why one: it is on every pairing
    /// token's path, and a round trip is most of a statement's cost (docs/fleet.md, "Performance").
    static func homeOwner(
        _ home: String,
        creatingFor uid: String,
        _ context: FleetMutationContext
    ) async throws
        -> String?
    {
        let (connection, logger, tenant, now) = (
            context.connection, context.logger, context.principal.tenant, context.now
        )
        guard
            let (claimed, owner) = try await connection.prepared(
                FleetStatements.HomeOwner(tenant: tenant, home: home, uid: uid, now: now, claim: context.claim),
                logger: logger
            ).first
        else { throw FleetError("the home's statement returned no row") }
        if context.claim != nil, !claimed { throw FleetKeyTaken() }
        if let owner { return owner }
        // The home was created by a transaction that committed while the insert waited on it: the
        // statement's snapshot is older than that commit, a new statement's is not.
        return try await connection.first(
            "SELECT owner_uid FROM home WHERE tenant_id = \(tenant) AND name = \(home)",
            as: String.self,
            logger: logger
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
                CloudServerFailure(
                    TuyaErrorCode.pairingTokenInvalid,
                    "pairing token invalid: issued for another home or account"
                )
            )
        }
        // The key's claim, the token and the device in one round trip (one row whatever is found);
        // the device's part is looked at only once the token passed, as the refusals' order says.
        let deviceKey = request.deviceID.hasNUL ? "" : request.deviceID
        guard
            let row = try await connection.prepared(
                FleetStatements.BindLookup(
                    token: request.token,
                    tenant: principal.tenant,
                    deviceID: deviceKey,
                    claim: context.claim
                ),
                logger: logger
            ).first
        else { throw FleetError("the bind's lookup returned no row") }
        if context.claim != nil, !row.0 { throw FleetKeyTaken() }
        let found = (row.1, row.2, row.3, row.4, row.5, row.6)
        var state: CloudServerRules.PairingTokenState?
        if let home = found.0, let uid = found.1, let expiresAt = found.2, let used = found.3 {
            state = CloudServerRules.PairingTokenState(home: home, uid: uid, expiresAt: expiresAt, used: used)
        }
        if let refusal = CloudServerRules.tokenRefusal(state, for: request, now: now) { throw FleetRollback(refusal) }
        func refuse(_ failure: CloudServerFailure, conflict: Bool = false) -> FleetRollback {
            FleetRollback(
                failure,
                record: .init(token: request.token, deviceID: request.deviceID, failure: failure, conflict: conflict)
            )
        }
        // Unknown, and not kept as an outcome: PostgreSQL's text cannot hold it.
        guard !request.deviceID.hasNUL else { throw FleetRollback(CloudServerRules.unknownDevice) }
        guard let deviceTenant = found.4 else { throw refuse(CloudServerRules.unknownDevice) }
        let frozenReason = found.5
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
            // The binding, the token's use, the outcome, the event and the key's answer in one
            // statement: each later part runs only when the one before it wrote its row (the
            // binding, then the token). The answer is known before: the binding's time is now.
            let boundJSON = try CloudJSON.string(
                CloudAPI.BindResult(deviceID: request.deviceID, status: "bound", boundAt: now)
            )
            guard
                let (boundAt, used) = try await connection.prepared(
                    FleetStatements.BindWrite(
                        deviceID: request.deviceID,
                        tenant: principal.tenant,
                        uid: request.uid,
                        home: request.assetID,
                        token: request.token,
                        gateway: principal.gateway,
                        now: now,
                        key: context.key,
                        answer: boundJSON,
                        clientID: principal.clientID
                    ),
                    logger: logger
                ).first
            else { throw FleetError("the bind's statement returned no row") }
            if boundAt != nil {
                guard used else {
                    // Another bind used the token since it was read: this one did not happen.
                    context.counters.conflict("token_used")
                    throw FleetRollback(
                        CloudServerFailure(TuyaErrorCode.pairingTokenExpired, "pairing token expired: already used")
                    )
                }
                context.answer.stored = true
                return boundJSON
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
