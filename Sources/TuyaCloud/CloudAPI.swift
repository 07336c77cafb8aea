/// nbgw's cloud profile: the paths, headers and JSON bodies the HTTP cloud and the emulator
/// share (`docs/cloud-api.yaml`). Signing, tokens, the envelope and the global error codes are
/// Tuya's (pairing-anchors §1.4–1.6); the pairing calls follow Tuya's industry "device
/// registration" API shapes (§1.2–1.3). Module self-registration has no published Tuya
/// equivalent for gateways, so its path and body are nbgw's own.
public enum CloudAPI {
    /// `GET ?grant_type=1`: a token in simple mode (§1.5).
    public static let tokenPath = "/v1.0/token"
    /// `GET`: a new token pair from a single-use refresh token (§1.5).
    public static func refreshTokenPath(_ refreshToken: String) -> String { "/v1.0/token/\(refreshToken)" }
    /// `POST` registers a module (idempotent by IMEI); `GET` lists registered modules.
    public static let modulesPath = "/v1.0/iot-03/nb-modules"
    /// `POST {code}` → `{action_name, action_data}` (the app SDK's QR parse, §1.1).
    public static let qrParsePath = "/v1.0/iot-03/qrcode/parse"
    /// `POST` creates a pairing token for a home (10 minutes, single use; §1.3).
    public static let pairingTokenPath = "/v1.0/iot-03/device-registration/token"
    /// `POST` binds an NB-IoT device to an account's home (strong binding).
    public static let bindPath = "/v1.0/iot-03/device-registration/nb-bind"
    /// `GET` the pairing result of a token: success and error device lists (§1.3).
    public static func pairingResultPath(_ token: String) -> String {
        "/v1.1/iot-03/device-registration/tokens/\(token)"
    }
    /// `GET` lists bindings.
    public static let bindingsPath = "/v1.0/iot-03/device-registration/bindings"
    /// `DELETE` unbinds a device.
    public static func bindingPath(_ deviceID: String) -> String { "\(bindingsPath)/\(deviceID)" }
    /// `GET ?after=CURSOR&limit=N&wait=S`: the tenant's events after a cursor, in order, waiting
    /// up to `wait` seconds for one when there is none (the Private Cloud's message service as a
    /// resumable long poll; nbgw-cloud only).
    public static let eventsPath = "/v1.0/nbgw/events"
    /// `POST {requests: [...]}`: up to ``batchLimit`` state-changing calls in one signed request,
    /// one result each in order, each applied as if sent alone under its own idempotency key
    /// (nbgw-cloud and the emulator; a gateway's outbox drains through it).
    public static let batchPath = "/v1.0/nbgw/batch"
    /// The most calls one batch carries.
    public static let batchLimit = 100

    /// Carries the idempotency key of a state-changing call; listed in `Signature-Headers`, so it is
    /// signed. The cloud answers a repeated key with the stored result of the first success.
    public static let idempotencyHeader = "Idempotency-Key"
    /// `pairing_type` of NB-IoT pairing tokens.
    public static let nbPairingType = "NB"
    /// Page size of list calls.
    public static let pageSize = 100
}
