import NBGWCore

/// A failed Kii call, before it becomes a ``Cloud/CloudFailure``: what went wrong, during which
/// operation, against which endpoint, with whose token, after how many attempts.
public struct KiiCallError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Error, Sendable, Equatable {
        /// No HTTP response: refused, reset or dropped connection.
        case transport(String)
        /// The connect or request timeout ran out.
        case timedOut(String)
        /// A non-2xx answer; Kii's `errorCode` and `message` when the body carried them.
        case httpStatus(Int, errorCode: String?, message: String?, retryAfter: Duration?)
        /// A 2xx answer whose body is not what Kii answers.
        case malformedResponse(String)
        /// Nothing was sent: the client cannot send to the configured site.
        case configuration(String)
        /// The caller's task was cancelled.
        case cancelled
    }

    /// Whose token the request carried: the gateway owner's, or the thing's own.
    public enum Principal: String, Sendable, Equatable {
        case owner
        case thing
    }

    public var kind: Kind
    /// What nbgw was doing: `onboard IMEI 490154203237518`, `add alice as owner of th.…`.
    public var operation: String
    /// `METHOD https://host/path` (paths carry ids, never tokens).
    public var endpoint: String
    public var principal: Principal
    public var attempts: Int

    public init(_ kind: Kind, operation: String, endpoint: String, principal: Principal, attempts: Int = 1) {
        self.kind = kind
        self.operation = operation
        self.endpoint = endpoint
        self.principal = principal
        self.attempts = attempts
    }

    /// The HTTP status, when Kii answered.
    public var status: Int? {
        if case .httpStatus(let status, _, _, _) = kind { return status }
        return nil
    }

    /// Kii's `errorCode`, when the answer carried one.
    public var errorCode: String? {
        if case .httpStatus(_, let code, _, _) = kind { return code }
        return nil
    }

    /// Worth another attempt: no answer, a timeout, an overloaded or rate-limiting site.
    public var isRetryable: Bool {
        switch kind {
        case .transport, .timedOut: true
        case .httpStatus(let status, _, _, _): status == 429 || (500...599).contains(status)
        case .malformedResponse, .configuration, .cancelled: false
        }
    }

    public var description: String {
        "\(operation) (\(endpoint), \(attempts) attempt\(attempts == 1 ? "" : "s")): \(kindDescription)"
    }

    var kindDescription: String {
        switch kind {
        case .transport(let detail): "no response: \(detail)"
        case .timedOut(let detail): "timed out: \(detail)"
        case .httpStatus(let status, let code, let message, _):
            "HTTP \(status)" + (code.map { " \($0.escapedSnippet)" } ?? "")
                + (message.map { ": \($0.escapedSnippet)" } ?? "")
        case .malformedResponse(let detail): "unreadable answer: \(detail)"
        case .configuration(let detail): detail
        case .cancelled: "cancelled"
        }
    }
}

extension String {
    /// Kii's words are untrusted text: quoted, escaped and cut before they reach a terminal.
    var escapedSnippet: String { escapedForDisplay(limit: 160) }
}
