import CloudServer
import GRDB
import TuyaCloud

extension EmulatorStore {
    /// A new token pair in simple mode (`grant_type=1`, pairing-anchors §1.5).
    static func grantToken(_ db: Database, uid: String, now: Int64, lifetime: Duration) throws -> CloudAPI.TokenResult {
        let result = try insertToken(db, uid: uid, now: now, lifetime: lifetime)
        try recordEffect(db, operation: "token_grant", subject: uid, key: nil, at: now)
        return result
    }

    /// A new pair for a refresh token, which works once: the old pair dies with it (§1.5).
    static func refreshToken(
        _ db: Database,
        refreshToken: String,
        now: Int64,
        lifetime: Duration
    ) throws -> Result<CloudAPI.TokenResult, CloudServerFailure> {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT access_token, uid, revoked FROM access_token WHERE refresh_token = ?",
                arguments: [refreshToken]
            )
        else {
            return .failure(CloudServerFailure(TuyaErrorCode.tokenInvalid, "token invalid: unknown refresh token"))
        }
        guard row["revoked"] as Int64 == 0 else {
            return .failure(
                CloudServerFailure(TuyaErrorCode.tokenStatusInvalid, "token status invalid: refresh token already used")
            )
        }
        try db.execute(
            sql: "UPDATE access_token SET revoked = 1 WHERE access_token = ?",
            arguments: [row["access_token"] as String]
        )
        let uid: String = row["uid"]
        let result = try insertToken(db, uid: uid, now: now, lifetime: lifetime)
        try recordEffect(db, operation: "token_refresh", subject: uid, key: nil, at: now)
        return .success(result)
    }

    private static func insertToken(
        _ db: Database,
        uid: String,
        now: Int64,
        lifetime: Duration
    ) throws -> CloudAPI.TokenResult {
        let access = CloudServerRules.randomHex(16)
        let refresh = CloudServerRules.randomHex(16)
        let seconds = Int(lifetime.components.seconds)
        try db.execute(
            sql: """
                INSERT INTO access_token (access_token, refresh_token, uid, issued_at, expires_at)
                VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [access, refresh, uid, now, now + max(1, Int64(seconds)) * 1000]
        )
        return CloudAPI.TokenResult(accessToken: access, expireTime: seconds, refreshToken: refresh, uid: uid)
    }

    /// Nil when `accessToken` is valid now; else the envelope error (1011 unknown or replaced,
    /// 1010 expired).
    static func checkAccessToken(_ db: Database, _ accessToken: String, now: Int64) throws -> CloudServerFailure? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT expires_at, revoked, forced_expired FROM access_token WHERE access_token = ?",
                arguments: [accessToken]
            )
        else {
            return CloudServerFailure(TuyaErrorCode.tokenInvalid, "token invalid")
        }
        if row["revoked"] as Int64 == 1 {
            return CloudServerFailure(TuyaErrorCode.tokenInvalid, "token invalid: replaced by a refresh")
        }
        if row["forced_expired"] as Int64 == 1 || now >= row["expires_at"] as Int64 {
            return CloudServerFailure(TuyaErrorCode.tokenExpired, "token is expired")
        }
        return nil
    }

    /// Expires every access token issued so far (the `expire_all_tokens` fault).
    public func expireAllTokens() throws {
        try write { db in try db.execute(sql: "UPDATE access_token SET forced_expired = 1") }
    }
}
