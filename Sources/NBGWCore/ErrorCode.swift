/// Every failure nbgw reports to an operator, with the process exit code and HTTP status it maps to.
///
/// The codes are part of the public contract (CLI `--json`, CSV reports, the ingest API);
/// docs/cli.md lists them. Never renumber an exit code once shipped.
public enum ErrorCode: String, Sendable, Codable, CaseIterable {
    // QR payloads
    case qrProtocolNotRecognized = "QR_PROTOCOL_NOT_RECOGNIZED"
    case invalidQR = "INVALID_QR"
    case notNBDevice = "NOT_NB_DEVICE"
    // Binding rules (the seed's NB-IoT pairing flow)
    case unknownDevice = "UNKNOWN_DEVICE"
    case deviceAlreadyBound = "DEVICE_ALREADY_BOUND"
    case guestNotAllowedStrongBind = "GUEST_NOT_ALLOWED_STRONG_BIND"
    case productNotAllowed = "PRODUCT_NOT_ALLOWED"
    case tokenExpired = "TOKEN_EXPIRED"
    case tokenInvalid = "TOKEN_INVALID"
    case timeout = "TIMEOUT"
    case homeAccessDenied = "HOME_ACCESS_DENIED"
    case notBound = "NOT_BOUND"
    // Accounts and homes
    case unknownAccount = "UNKNOWN_ACCOUNT"
    case unknownHome = "UNKNOWN_HOME"
    case accountExists = "ACCOUNT_EXISTS"
    case homeExists = "HOME_EXISTS"
    // Arguments, rows and the store
    case invalidArgument = "INVALID_ARGUMENT"
    case missingField = "MISSING_FIELD"
    case duplicateInFile = "DUPLICATE_IN_FILE"
    case invalidRow = "INVALID_ROW"
    // Requests to the ingest HTTP API (issue 7); a CLI that calls the API exits with these too.
    /// The request body is over the server's limit.
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    /// No route has this path.
    case notFound = "NOT_FOUND"
    /// The path exists, but not with this method.
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    /// No, a malformed, an unknown or a revoked API key.
    case unauthenticated = "UNAUTHENTICATED"
    /// The API key's request budget is spent for now; retry after the `Retry-After` seconds.
    case rateLimited = "RATE_LIMITED"
    case storeUnavailable = "STORE_UNAVAILABLE"
    case internalError = "INTERNAL"
    // The operator's half: finding the store, the daemon and its modems (issue 17).
    /// No store where the CLI looked (the message names every place tried); read commands never create one.
    case storeNotFound = "STORE_NOT_FOUND"
    /// The store, the daemon's config or its control socket exists, but this user may not use it
    /// (the message names the group to join).
    case permissionDenied = "PERMISSION_DENIED"
    /// The daemon supervises no modem with that IMEI or port.
    case unknownModem = "UNKNOWN_MODEM"
    /// The modem cannot take the request now (it is being probed, reset, or released by another operator).
    case modemBusy = "MODEM_BUSY"
    /// A command that would break the supervisor's view of the module, sent without `--force`.
    case commandRefused = "COMMAND_REFUSED"
    /// No daemon answers on the control socket.
    case daemonNotRunning = "DAEMON_NOT_RUNNING"
    // The modules' credentials, sealed in the store under the secrets key (docs/operations.md,
    // "Module credentials").
    /// This process holds no secrets key (an operator's CLI): the work that needs a module's
    /// credential is left queued for the daemon, which holds it.
    case secretsKeyMissing = "SECRETS_KEY_MISSING"
    /// A module credential does not open with the key this process holds (sealed under another
    /// key, or altered in the store).
    case secretsKeyMismatch = "SECRETS_KEY_MISMATCH"

    /// The process exit status `nbgw` uses for this code. 0 is success, 1 is reserved for
    /// "some rows failed" in batch commands, 64 for usage errors (argument parsing), 78 for the
    /// daemon's bad configuration (both sysexits(3)); 50 to 52 belong to `nbgw modem`/`nbgw at`.
    public var exitCode: Int32 {
        switch self {
        case .qrProtocolNotRecognized: 10
        case .invalidQR: 11
        case .notNBDevice: 12
        case .unknownDevice: 20
        case .deviceAlreadyBound: 21
        case .guestNotAllowedStrongBind: 22
        case .productNotAllowed: 23
        case .tokenExpired: 24
        case .tokenInvalid: 25
        case .timeout: 26
        case .homeAccessDenied: 27
        case .notBound: 28
        case .unknownAccount: 30
        case .unknownHome: 31
        case .accountExists: 32
        case .homeExists: 33
        case .invalidArgument: 40
        case .missingField: 41
        case .duplicateInFile: 42
        case .invalidRow: 43
        case .payloadTooLarge: 44
        case .notFound: 45
        case .methodNotAllowed: 46
        case .unauthenticated: 60
        case .rateLimited: 61
        case .storeUnavailable: 70
        case .internalError: 71
        // sysexits(3): EX_NOINPUT, EX_NOPERM.
        case .storeNotFound: 66
        case .permissionDenied: 77
        // Beside `nbgw modem`'s 50 to 52.
        case .unknownModem: 53
        case .modemBusy: 54
        case .commandRefused: 55
        case .daemonNotRunning: 56
        // Beside the store's 70 and 71.
        case .secretsKeyMissing: 72
        case .secretsKeyMismatch: 73
        }
    }

    /// The HTTP status the ingest API answers with for this code.
    public var httpStatus: Int {
        switch self {
        case .qrProtocolNotRecognized, .invalidQR, .notNBDevice, .invalidArgument, .missingField, .duplicateInFile,
            .invalidRow:
            400
        case .unauthenticated: 401
        case .guestNotAllowedStrongBind, .productNotAllowed, .homeAccessDenied, .permissionDenied, .commandRefused: 403
        case .unknownDevice, .unknownAccount, .unknownHome, .notBound, .tokenInvalid, .notFound, .unknownModem: 404
        case .methodNotAllowed: 405
        case .deviceAlreadyBound, .accountExists, .homeExists, .modemBusy: 409
        case .tokenExpired: 410
        case .payloadTooLarge: 413
        case .rateLimited: 429
        case .timeout, .storeUnavailable, .storeNotFound, .daemonNotRunning, .secretsKeyMissing: 503
        case .internalError, .secretsKeyMismatch: 500
        }
    }
}
