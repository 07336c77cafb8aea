import NBGWCore

/// Why the console does not take a batch upload or resume, as it answers: the error (its code gives
/// the HTTP status and the page's message) and, when trying again later will work, after how many
/// seconds (`Retry-After`).
public struct ConsoleBatchRefusal: Error, Sendable {
    public var error: NBGWError
    public var retryAfterSeconds: Int?

    public init(_ error: NBGWError, retryAfterSeconds: Int? = nil) {
        self.error = error
        self.retryAfterSeconds = retryAfterSeconds
    }
}
