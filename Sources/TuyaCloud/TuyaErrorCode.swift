/// The cloud's envelope error codes nbgw knows: Tuya's global list (pairing-anchors §1.6) and the
/// codes of nbgw's pairing profile (the `3xxx` range, which Tuya's list does not use), all
/// documented in `docs/cloud-api.yaml`.
public enum TuyaErrorCode {
    // Tuya global codes (§1.6).
    public static let systemError = 500
    public static let dataNotExist = 1000
    public static let secretInvalid = 1001
    public static let accessTokenNull = 1002
    public static let grantTypeInvalid = 1003
    public static let signInvalid = 1004
    public static let clientIDInvalid = 1005
    public static let tokenExpired = 1010
    public static let tokenInvalid = 1011
    public static let tokenStatusInvalid = 1012
    public static let requestTimeInvalid = 1013
    public static let paramEmpty = 1100
    public static let paramRange = 1101
    public static let paramIllegal = 1109
    public static let missingHeader = 1105
    public static let permissionDenied = 1106
    public static let uriPathInvalid = 1108
    public static let concurrencyOverLimit = 1110
    public static let systemBusy = 1111
    public static let repeatedOperation = 1113
    public static let requestsTooFrequent = 1199
    public static let deviceNotExist = 2010

    // nbgw pairing profile.
    /// The QR is not a label this cloud issued (`QR_PROTOCOL_NOT_RECOGNIZED`).
    public static let qrNotRecognized = 3001
    /// Strong binding: the device is bound to another account or home.
    public static let deviceAlreadyBound = 3002
    /// The pairing token is older than 10 minutes or was already used.
    public static let pairingTokenExpired = 3003
    /// The pairing token is unknown or was issued for another home.
    public static let pairingTokenInvalid = 3004
    /// Unbind of a device that is not bound.
    public static let deviceNotBound = 3005
    /// The home belongs to another account.
    public static let homeAccessDenied = 3006
    /// The device is frozen by the fleet's operator: binds are refused until it is unfrozen.
    public static let deviceFrozen = 3007

    /// Codes that mean the credentials, the clock or the endpoint are wrong, not the request.
    public static let configurationCodes: Set<Int> = [
        secretInvalid, accessTokenNull, grantTypeInvalid, signInvalid, clientIDInvalid, tokenExpired, tokenInvalid,
        tokenStatusInvalid, requestTimeInvalid, missingHeader, permissionDenied, uriPathInvalid,
    ]

    /// Tuya's short name for a code, for messages.
    public static func name(_ code: Int) -> String? {
        switch code {
        case systemError: "system error"
        case dataNotExist: "data not exist"
        case secretInvalid: "secret invalid"
        case accessTokenNull: "access_token is null"
        case grantTypeInvalid: "grant type invalid"
        case signInvalid: "sign invalid"
        case clientIDInvalid: "clientId invalid"
        case tokenExpired: "token is expired"
        case tokenInvalid: "token invalid"
        case tokenStatusInvalid: "token status invalid"
        case requestTimeInvalid: "request time invalid"
        case paramEmpty, 1102: "param is empty"
        case paramRange: "param range invalid"
        case 1104: "type is incorrect"
        case missingHeader: "missing header"
        case permissionDenied: "permission deny"
        case 1107: "code invalid"
        case uriPathInvalid: "uri path invalid"
        case paramIllegal: "param is illegal"
        case concurrencyOverLimit: "concurrent request over limit"
        case systemBusy: "system busy"
        case repeatedOperation: "repeated operation"
        case requestsTooFrequent: "requests too frequent"
        case 2001: "device is offline"
        case deviceNotExist: "device not exist"
        case qrNotRecognized: "QR protocol not recognized"
        case deviceAlreadyBound: "device already bound"
        case pairingTokenExpired: "pairing token expired"
        case pairingTokenInvalid: "pairing token invalid"
        case deviceNotBound: "device not bound"
        case homeAccessDenied: "home access denied"
        case deviceFrozen: "device frozen"
        default: nil
        }
    }
}
