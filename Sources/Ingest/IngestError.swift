import Pairing

/// An error the ingest API answers with: an HTTP status and the body
/// `{"error":{"code","message"}}`. Wraps every ``ErrorCode`` (status from
/// ``ErrorCode/httpStatus``) plus the HTTP-only codes below.
public struct IngestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// Seconds to put in `Retry-After` (429).
    public var retryAfterSeconds: Int?

    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public init(_ error: NBGWError) {
        self.init(status: error.code.httpStatus, code: error.code.rawValue, message: error.message)
    }

    public var description: String { "\(status) \(code): \(message)" }

    // HTTP-only codes. They are not ``ErrorCode`` cases because they have no CLI exit status;
    // docs/ingest-api.yaml lists them with the others.

    /// 401: no, malformed, unknown or revoked API key.
    public static let unauthenticated = "UNAUTHENTICATED"
    /// 413: the body is over ``IngestConfiguration/maxBodyBytes``.
    public static let payloadTooLarge = "PAYLOAD_TOO_LARGE"
    /// 429: the key's token bucket is empty.
    public static let rateLimited = "RATE_LIMITED"
    /// 404: no such route.
    public static let notFound = "NOT_FOUND"
    /// 405: the route exists but not with this method.
    public static let methodNotAllowed = "METHOD_NOT_ALLOWED"

    /// Every code the ingest API can answer with.
    public static var allCodes: [String] {
        ErrorCode.allCases.map(\.rawValue) + [
            unauthenticated, payloadTooLarge, rateLimited, notFound, methodNotAllowed,
        ]
    }

    static func invalid(_ message: String) -> IngestError {
        IngestError(NBGWError(.invalidArgument, message))
    }
}
