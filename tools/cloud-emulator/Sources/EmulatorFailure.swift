import TuyaCloud

/// An error answer: the envelope `{success: false, code, msg}` with the HTTP status of the outcome
/// (``httpStatus(for:)``), or an injected transport-level fault's own status.
struct EmulatorFailure: Error, Sendable, Equatable {
    var code: Int
    var msg: String
    var httpStatus: Int

    init(_ code: Int, _ msg: String, httpStatus: Int? = nil) {
        self.code = code
        self.msg = msg
        self.httpStatus = httpStatus ?? EmulatorFailure.httpStatus(for: code)
    }

    static func invalid(_ what: String) -> EmulatorFailure {
        EmulatorFailure(TuyaErrorCode.paramIllegal, "param is illegal: \(what)")
    }

    /// The HTTP status of an envelope code, for a client that sends `Prefer: http-status`
    /// (docs/cloud-api.yaml "Envelope and statuses"); others get 200, as from Tuya's gateways.
    ///
    /// Why both: Tuya's SDKs read the envelope of a 200 and nothing else (tuya-connector-python
    /// 0.1.2 crashes in its own error logging on a 4xx), while an integrator's tools (and
    /// schemathesis) judge an API by its statuses, and a 200 that refuses is a contract no tool can
    /// check. nbgw's client decides on the envelope's code whatever the status (it retries 429 and
    /// 5xx as before), so it speaks to both.
    static func httpStatus(for code: Int) -> Int {
        switch code {
        case TuyaErrorCode.systemError: 500
        case TuyaErrorCode.secretInvalid, TuyaErrorCode.accessTokenNull, TuyaErrorCode.signInvalid,
            TuyaErrorCode.clientIDInvalid, TuyaErrorCode.tokenExpired, TuyaErrorCode.tokenInvalid,
            TuyaErrorCode.tokenStatusInvalid, TuyaErrorCode.requestTimeInvalid, TuyaErrorCode.missingHeader:
            401
        case TuyaErrorCode.permissionDenied, TuyaErrorCode.homeAccessDenied: 403
        case TuyaErrorCode.uriPathInvalid, TuyaErrorCode.deviceNotExist, TuyaErrorCode.qrNotRecognized,
            TuyaErrorCode.pairingTokenInvalid, TuyaErrorCode.deviceNotBound, TuyaErrorCode.dataNotExist:
            404
        case TuyaErrorCode.repeatedOperation, TuyaErrorCode.deviceAlreadyBound: 409
        case TuyaErrorCode.pairingTokenExpired: 410
        case TuyaErrorCode.requestsTooFrequent: 429
        case TuyaErrorCode.concurrencyOverLimit, TuyaErrorCode.systemBusy: 503
        default: 400
        }
    }
}
