import CloudServer
import GRDB
import TuyaCloud

/// The emulator's store behind the shared route handlers: one project (the configured client id
/// and secret), one tenant, every call one SQLite transaction on one serial queue.
extension EmulatorStore: CloudServerStore {
    public func credential(clientID: String) async throws -> CloudCredential? {
        guard clientID == credentials.clientID else { return nil }
        return CloudCredential(
            principal: CloudPrincipal(tenant: "emulator", gateway: "emulator", clientID: clientID),
            signers: [credentials.signer]
        )
    }

    public func grantToken(_ principal: CloudPrincipal, now: Int64, lifetime: Duration) async throws
        -> CloudAPI.TokenResult
    {
        try write { db in try EmulatorStore.grantToken(db, uid: "emulator-" + principal.clientID, now: now, lifetime: lifetime) }
    }

    public func refreshToken(
        _ principal: CloudPrincipal,
        refreshToken: String,
        now: Int64,
        lifetime: Duration
    ) async throws -> Result<CloudAPI.TokenResult, CloudServerFailure> {
        try write { db in
            try EmulatorStore.refreshToken(db, refreshToken: refreshToken, now: now, lifetime: lifetime)
        }
    }

    public func checkAccessToken(_ principal: CloudPrincipal, accessToken: String, now: Int64) async throws
        -> CloudServerFailure?
    {
        try read { db in try EmulatorStore.checkAccessToken(db, accessToken, now: now) }
    }

    public func mutate(
        _ mutation: CloudMutation,
        by principal: CloudPrincipal,
        idempotency: CloudIdempotency?,
        settings: CloudServerSettings,
        now: Int64
    ) async throws -> Result<CloudMutationAnswer, CloudServerFailure> {
        let client = principal.clientID
        return try write { db in
            if let idempotency {
                switch try EmulatorStore.replay(
                    db,
                    client: client,
                    key: idempotency.key,
                    requestHash: idempotency.requestHash
                ) {
                case .result(let stored): return .success(.replayed(json: stored))
                case .conflict: return .failure(.idempotencyKeyReused)
                case .none: break
                }
            }
            let key = idempotency?.key
            let json: String
            switch mutation {
            case .register(let request):
                switch try EmulatorStore.register(db, request, labelBase: settings.labelBase, key: key, now: now) {
                case .failure(let failure): return .failure(failure)
                case .success(let result): json = try CloudJSON.string(result)
                }
            case .pairingToken(let request):
                switch try EmulatorStore.createPairingToken(
                    db,
                    request,
                    lifetime: settings.pairingTokenLifetime,
                    region: settings.region,
                    key: key,
                    now: now
                ) {
                case .failure(let failure): return .failure(failure)
                case .success(let result): json = try CloudJSON.string(result)
                }
            case .bind(let request):
                switch try EmulatorStore.bind(db, request, key: key, now: now) {
                case .failure(let failure): return .failure(failure)
                case .success(let result): json = try CloudJSON.string(result)
                }
            case .unbind(let deviceID):
                switch try EmulatorStore.unbind(db, deviceID: deviceID, key: key, now: now) {
                case .failure(let failure): return .failure(failure)
                case .success(let result): json = try CloudJSON.string(result)
                }
            case .transfer, .freeze, .delete:
                // The handler never sends them here (managesDevices is false); refused all the same.
                return .failure(.deviceManagementNotOffered)
            }
            if let idempotency {
                try EmulatorStore.remember(
                    db,
                    client: client,
                    key: idempotency.key,
                    requestHash: idempotency.requestHash,
                    response: json,
                    now: now
                )
            }
            return .success(.applied(json: json))
        }
    }

    public func modules(_ principal: CloudPrincipal, after: String, limit: Int) async throws
        -> CloudAPI.Page<CloudAPI.Module>
    {
        try read { db in try EmulatorStore.modules(db, after: after, limit: limit) }
    }

    public func module(_ principal: CloudPrincipal, labelCode: String) async throws -> CloudAPI.Module? {
        try read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT device_id, imei, label_code, product_id FROM device WHERE label_code = ?",
                arguments: [labelCode]
            ).map { row in
                CloudAPI.Module(
                    deviceID: row["device_id"],
                    imei: row["imei"],
                    labelCode: row["label_code"],
                    productID: row["product_id"]
                )
            }
        }
    }

    public func pairingResult(_ principal: CloudPrincipal, token: String) async throws
        -> Result<CloudAPI.PairingResult, CloudServerFailure>
    {
        try read { db in try EmulatorStore.pairingResult(db, token: token) }
    }

    public func bindings(_ principal: CloudPrincipal, after: String, limit: Int) async throws
        -> CloudAPI.Page<CloudAPI.Binding>
    {
        try read { db in try EmulatorStore.bindings(db, after: after, limit: limit) }
    }
}
