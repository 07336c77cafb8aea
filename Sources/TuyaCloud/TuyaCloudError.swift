import Cloud
import NBGWCore

/// A failed cloud call, before it is turned into an operator-facing ``Pairing/NBGWError``: what
/// went wrong (``Kind``), during which operation, against which endpoint, after how many attempts.
///
/// The outbox drainer needs the distinction this type keeps and `NBGWError` loses: a transient
/// failure reschedules a row, a rejection by the cloud retires it, and a configuration problem
/// (wrong secret, clock skew, wrong data center) stops the whole drain.
public struct TuyaCloudError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Error, Sendable, Equatable {
        /// The request did not get an HTTP response: connection refused, reset or dropped, DNS.
        case transport(String)
        /// The connect or request timeout ran out.
        case timedOut(String)
        /// A non-2xx HTTP status without a usable envelope; `retryAfter` from the header, if any.
        case httpStatus(Int, retryAfter: Duration?)
        /// The envelope said `success: false` with this code and message.
        case api(code: Int, message: String)
        /// A 2xx response whose body is not the expected envelope.
        case malformedResponse(String)
        /// Nothing was sent: the configuration cannot work (bad URL, credentials, …).
        case configuration(String)
        /// The caller's task was cancelled (a shutdown); nothing more was attempted.
        case cancelled
    }

    public var kind: Kind
    /// What nbgw was doing, for messages: `register IMEI 490154203237518`, `bind device nb…`.
    public var operation: String
    /// `METHOD https://host/path` with secrets in the path replaced (refresh and pairing tokens).
    public var endpoint: String
    public var attempts: Int

    public init(_ kind: Kind, operation: String, endpoint: String, attempts: Int = 1) {
        self.kind = kind
        self.operation = operation
        self.endpoint = endpoint
        self.attempts = attempts
    }

    /// The envelope code, when the cloud answered with one.
    public var code: Int? {
        if case .api(let code, _) = kind { return code }
        return nil
    }

    /// Worth trying again later (an outbox row stays queued): the cloud was unreachable, slow,
    /// overloaded or rate-limiting, or the pairing token it issued ran out meanwhile.
    public var isTransient: Bool {
        RetryPolicy.standard.isRetryable(kind)
    }

    /// The configuration, not the request, is wrong: every other call would fail the same way, so
    /// a drain stops instead of retiring rows.
    public var isConfigurationProblem: Bool {
        switch kind {
        case .configuration: true
        case .api(let code, _): TuyaErrorCode.configurationCodes.contains(code)
        default: false
        }
    }

    public var description: String {
        "\(operation) (\(endpoint), \(attempts) attempt\(attempts == 1 ? "" : "s")): \(kindDescription)"
    }

    var kindDescription: String {
        switch kind {
        case .transport(let detail): "no response: \(detail)"
        case .timedOut(let detail): "timed out: \(detail)"
        case .httpStatus(let status, _): "HTTP \(status)"
        case .api(let code, let message):
            "code \(code) \(TuyaErrorCode.name(code).map { "(\($0))" } ?? "") \(message.escapedSnippet)"
        case .malformedResponse(let detail): "unreadable response: \(detail)"
        case .configuration(let detail): detail
        case .cancelled: "cancelled"
        }
    }
}

extension String {
    /// Cloud messages are untrusted text: quoted, escaped and cut before they reach a terminal.
    var escapedSnippet: String { escapedForDisplay(limit: 160) }
}
