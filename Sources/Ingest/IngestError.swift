import NBGWCore

/// An error the ingest API answers with: an HTTP status and the body
/// `{"error":{"code","message"}}`. Every code is an ``ErrorCode`` (status from
/// ``ErrorCode/httpStatus``), the HTTP-only ones included (`UNAUTHENTICATED`, `PAYLOAD_TOO_LARGE`,
/// `RATE_LIMITED`, `NOT_FOUND`, `METHOD_NOT_ALLOWED`), so the CLI and the API share one list.
public struct IngestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// Seconds to put in `Retry-After` (429).
    public var retryAfterSeconds: Int?
    /// The methods the path takes, for the `Allow` header a 405 must carry (RFC 9110 §15.5.6).
    public var allow: [String]?

    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil, allow: [String]? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.allow = allow
    }

    public init(_ error: NBGWError, retryAfterSeconds: Int? = nil) {
        self.init(
            status: error.code.httpStatus,
            code: error.code.rawValue,
            message: error.message,
            retryAfterSeconds: retryAfterSeconds
        )
    }

    public init(_ code: ErrorCode, _ message: String, retryAfterSeconds: Int? = nil) {
        self.init(NBGWError(code, message), retryAfterSeconds: retryAfterSeconds)
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// Every code the ingest API can answer with (docs/ingest-api.yaml lists them all).
    public static var allCodes: [String] {
        ErrorCode.allCases.filter { !operatorOnly.contains($0) }.map(\.rawValue)
    }

    /// Codes of the operator's tools around the daemon (its control socket, the CLI finding the
    /// store), which the ingest API never answers with: it opens its own store and talks to no daemon.
    /// Nor with the secrets key's: a bind commits locally whatever they say, and a credential this
    /// process cannot open only leaves the bind's cloud work queued (`cloudSync: queued`).
    static let operatorOnly: Set<ErrorCode> = [
        .storeNotFound, .unknownModem, .modemBusy, .commandRefused, .daemonNotRunning, .secretsKeyMissing,
        .secretsKeyMismatch,
    ]

    static func invalid(_ message: String) -> IngestError {
        IngestError(.invalidArgument, message)
    }
}
