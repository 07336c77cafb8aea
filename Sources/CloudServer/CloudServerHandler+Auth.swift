import TuyaCloud

extension CloudServerHandler {
    /// Checks a request the way Tuya's gateway does: client id (1005), sign method and signature
    /// (1004), `t` within the allowed skew (1013), required headers (1105), an access token on
    /// business calls (1002), and no replay within the skew window (1004: the same nonce, or the
    /// same signature, seen before). Returns who signed and the access token of a business
    /// call (nil for a token call).
    public func authenticate(
        _ request: CloudServerRequest,
        now: Int64,
        skewCheck: Bool = true
    ) async -> Result<(CloudPrincipal, String?), CloudServerFailure> {
        guard let clientID = request.header("client_id") else {
            return .failure(CloudServerFailure(TuyaErrorCode.missingHeader, "missing header: client_id"))
        }
        let credential: CloudCredential
        do {
            guard let found = try await store.credential(clientID: clientID) else {
                return .failure(CloudServerFailure(TuyaErrorCode.clientIDInvalid, "clientId invalid"))
            }
            credential = found
        } catch {
            return .failure(.storeFailed(error))
        }
        guard request.header("sign_method")?.uppercased() == TuyaSigner.signMethod else {
            return .failure(CloudServerFailure(TuyaErrorCode.signInvalid, "sign invalid: sign_method must be HMAC-SHA256"))
        }
        guard let t = request.header("t"), let millis = Int64(t) else {
            return .failure(CloudServerFailure(TuyaErrorCode.missingHeader, "missing header: t"))
        }
        if skewCheck, abs(millis - now) > settings.allowedClockSkew.cloudMillis {
            return .failure(
                CloudServerFailure(
                    TuyaErrorCode.requestTimeInvalid,
                    "request time invalid: t differs from the cloud's time by \(abs(millis - now)) ms"
                )
            )
        }
        guard let sign = request.header("sign") else {
            return .failure(CloudServerFailure(TuyaErrorCode.missingHeader, "missing header: sign"))
        }
        // Optional, as at Tuya's gateways (their SDKs never send one): replays are refused by the
        // signature below, and a nonce, when sent, must not repeat either.
        let nonce = request.header("nonce") ?? ""
        var signed: [(name: String, value: String)] = []
        if let names = request.header("signature-headers"), !names.isEmpty {
            for name in names.split(separator: ":").map(String.init) {
                guard let value = request.header(name) else {
                    return .failure(
                        CloudServerFailure(
                            TuyaErrorCode.missingHeader,
                            "missing header: \(name) (listed in Signature-Headers)"
                        )
                    )
                }
                signed.append((name, value))
            }
        }
        let tokenCall = CloudServerHandler.isTokenCall(request.path)
        let accessToken = tokenCall ? nil : request.header("access_token")
        if !tokenCall, accessToken == nil {
            return .failure(CloudServerFailure(TuyaErrorCode.accessTokenNull, "access_token is null"))
        }
        let stringToSign = TuyaSigner.stringToSign(
            method: request.method,
            body: request.body,
            signedHeaders: signed,
            url: TuyaSigner.canonicalURL(path: request.path, query: request.query)
        )
        let authentic = credential.signers.contains { signer in
            signer.isValid(sign: sign, accessToken: accessToken, t: t, nonce: nonce, stringToSign: stringToSign)
        }
        guard authentic else {
            return .failure(CloudServerFailure(TuyaErrorCode.signInvalid, "sign invalid"))
        }
        // Keyed by client: one gateway's nonce says nothing about another's.
        let replayScope = credential.principal.clientID + " "
        if !nonce.isEmpty, !replays.insert(replayScope + "nonce " + nonce, now: now) {
            return .failure(CloudServerFailure(TuyaErrorCode.signInvalid, "sign invalid: nonce already used"))
        }
        if !replays.insert(replayScope + "sign " + sign.uppercased(), now: now) {
            return .failure(
                CloudServerFailure(TuyaErrorCode.signInvalid, "sign invalid: the same request was already received")
            )
        }
        return .success((credential.principal, accessToken))
    }

    static func isTokenCall(_ path: String) -> Bool {
        path == CloudAPI.tokenPath || path.hasPrefix(CloudAPI.tokenPath + "/")
    }

    /// The idempotency key of a state-changing call, which must be signed; nil when absent.
    public func idempotencyKey(_ request: CloudServerRequest) -> Result<String?, CloudServerFailure> {
        guard let key = request.header(CloudAPI.idempotencyHeader) else { return .success(nil) }
        let listed = (request.header("signature-headers") ?? "").split(separator: ":").map { $0.lowercased() }
        guard listed.contains(CloudAPI.idempotencyHeader.lowercased()) else {
            return .failure(.invalid("\(CloudAPI.idempotencyHeader) must be listed in Signature-Headers"))
        }
        guard (16...64).contains(key.utf8.count),
            key.utf8.allSatisfy({
                CloudServerRules.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                    || $0 == UInt8(ascii: ".")
            })
        else {
            return .failure(.invalid("\(CloudAPI.idempotencyHeader) must be 16 to 64 of [A-Za-z0-9._-]"))
        }
        return .success(key)
    }
}
