import CloudServer
import GRDB
import TuyaCloud

extension EmulatorStore {
    /// A pairing token for a home (§1.3): the home is created for `uid` on first use; a home of
    /// another account is refused (3006).
    static func createPairingToken(
        _ db: Database,
        _ request: CloudAPI.PairingTokenRequest,
        lifetime: Duration,
        region: String,
        key: String?,
        now: Int64
    ) throws -> Result<CloudAPI.PairingTokenResult, CloudServerFailure> {
        if let owner = try String.fetchOne(
            db,
            sql: "SELECT owner_uid FROM home WHERE name = ?",
            arguments: [request.assetID]
        ) {
            guard owner == request.uid else { return .failure(CloudServerRules.homeOfAnotherAccount) }
        } else {
            try db.execute(
                sql: "INSERT INTO home (name, owner_uid, created_at) VALUES (?, ?, ?)",
                arguments: [request.assetID, request.uid, now]
            )
        }
        let token = CloudServerRules.mintPairingToken()
        let seconds = max(1, Int(lifetime.components.seconds))
        try db.execute(
            sql: "INSERT INTO pairing_token (token, home, uid, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [token, request.assetID, request.uid, now, now + Int64(seconds) * 1000]
        )
        try recordEffect(db, operation: "pairing_token", subject: request.assetID, key: key, at: now)
        return .success(CloudAPI.PairingTokenResult(token: token, expireTime: seconds, region: region))
    }

    /// Strong binding with a pairing token of the home. Refusals that concern the device (unknown,
    /// already bound elsewhere) are recorded as the token's pairing outcome; the token stays
    /// usable. Success uses the token up.
    static func bind(
        _ db: Database,
        _ request: CloudAPI.BindRequest,
        key: String?,
        now: Int64
    ) throws -> Result<CloudAPI.BindResult, CloudServerFailure> {
        let token = try Row.fetchOne(
            db,
            sql: "SELECT home, uid, expires_at, used_at FROM pairing_token WHERE token = ?",
            arguments: [request.token]
        )
        let state = token.map { token in
            CloudServerRules.PairingTokenState(
                home: token["home"],
                uid: token["uid"],
                expiresAt: token["expires_at"],
                used: token["used_at"] as Int64? != nil
            )
        }
        if let refusal = CloudServerRules.tokenRefusal(state, for: request, now: now) { return .failure(refusal) }
        func refuse(_ failure: CloudServerFailure) throws -> Result<CloudAPI.BindResult, CloudServerFailure> {
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO pairing_outcome (token, device_id, success, error_code, error_msg, at)
                    VALUES (?, ?, 0, ?, ?, ?)
                    """,
                arguments: [request.token, request.deviceID, String(failure.code), failure.msg, now]
            )
            return .failure(failure)
        }
        guard try exists(db, "SELECT 1 FROM device WHERE device_id = ?", request.deviceID) else {
            return try refuse(CloudServerRules.unknownDevice)
        }
        if let existing = try Row.fetchOne(
            db,
            sql: "SELECT uid, home, bound_at FROM binding WHERE device_id = ?",
            arguments: [request.deviceID]
        ) {
            if existing["uid"] as String == request.uid, existing["home"] as String == request.assetID {
                return .success(
                    CloudAPI.BindResult(deviceID: request.deviceID, status: "unchanged", boundAt: existing["bound_at"])
                )
            }
            return try refuse(CloudServerRules.alreadyBound())
        }
        try db.execute(
            sql: "INSERT INTO binding (device_id, uid, home, token, bound_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [request.deviceID, request.uid, request.assetID, request.token, now]
        )
        try db.execute(
            sql: "UPDATE pairing_token SET used_at = ?, used_by = ? WHERE token = ?",
            arguments: [now, request.deviceID, request.token]
        )
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO pairing_outcome (token, device_id, success, error_code, error_msg, at)
                VALUES (?, ?, 1, NULL, NULL, ?)
                """,
            arguments: [request.token, request.deviceID, now]
        )
        try recordEffect(db, operation: "bind", subject: request.deviceID, key: key, at: now)
        return .success(CloudAPI.BindResult(deviceID: request.deviceID, status: "bound", boundAt: now))
    }

    /// What happened with a token (§1.3): bound devices and refused ones with their codes.
    static func pairingResult(_ db: Database, token: String) throws -> Result<CloudAPI.PairingResult, CloudServerFailure> {
        guard try exists(db, "SELECT 1 FROM pairing_token WHERE token = ?", token) else {
            return .failure(CloudServerFailure(TuyaErrorCode.pairingTokenInvalid, "pairing token invalid: unknown token"))
        }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT o.device_id, o.success, o.error_code, o.error_msg, d.product_id
                FROM pairing_outcome o LEFT JOIN device d ON d.device_id = o.device_id
                WHERE o.token = ? ORDER BY o.at, o.device_id
                """,
            arguments: [token]
        )
        var success: [CloudAPI.PairingResult.SuccessDevice] = []
        var failed: [CloudAPI.PairingResult.ErrorDevice] = []
        for row in rows {
            if row["success"] as Int64 == 1 {
                success.append(.init(deviceID: row["device_id"], productID: row["product_id"]))
            } else {
                failed.append(
                    .init(deviceID: row["device_id"], errorCode: row["error_code"], errorMsg: row["error_msg"])
                )
            }
        }
        return .success(CloudAPI.PairingResult(successDevices: success, errorDevices: failed))
    }

    static func unbind(
        _ db: Database,
        deviceID: String,
        key: String?,
        now: Int64
    ) throws -> Result<CloudAPI.UnbindResult, CloudServerFailure> {
        guard try exists(db, "SELECT 1 FROM device WHERE device_id = ?", deviceID) else {
            return .failure(CloudServerFailure(TuyaErrorCode.deviceNotExist, "device not exist"))
        }
        guard try exists(db, "SELECT 1 FROM binding WHERE device_id = ?", deviceID) else {
            return .failure(CloudServerFailure(TuyaErrorCode.deviceNotBound, "device not bound"))
        }
        try db.execute(sql: "DELETE FROM binding WHERE device_id = ?", arguments: [deviceID])
        try recordEffect(db, operation: "unbind", subject: deviceID, key: key, at: now)
        return .success(CloudAPI.UnbindResult(deviceID: deviceID, status: "unbound"))
    }

    static func bindings(_ db: Database, after: String, limit: Int) throws -> CloudAPI.Page<CloudAPI.Binding> {
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT device_id, uid, home, bound_at FROM binding WHERE device_id > ? ORDER BY device_id LIMIT ?",
            arguments: [after, limit + 1]
        )
        let list = rows.prefix(limit).map { row in
            CloudAPI.Binding(
                deviceID: row["device_id"],
                uid: row["uid"],
                assetID: row["home"],
                boundAt: row["bound_at"]
            )
        }
        return CloudAPI.Page(list: Array(list), hasMore: rows.count > limit, lastRowKey: list.last?.deviceID)
    }
}
