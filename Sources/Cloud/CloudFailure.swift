import NBGWCore

/// A cloud call that did not succeed, and whether the work may be tried again: what the outbox
/// needs to settle a row exactly once (pending again, or dead).
public struct CloudFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The cloud could not be reached or was overloaded (network, timeouts, 5xx, rate limits):
        /// try again later.
        case unavailable
        /// The gateway's configuration is wrong (credentials, clock, data center): try again once
        /// it is fixed; every other call would fail the same way.
        case misconfigured
        /// The cloud refused this work for good (unknown device, bound elsewhere): do not retry.
        case refused
        /// The caller stopped waiting (its budget ran out, or its task was cancelled): the work may
        /// or may not have reached the cloud; resend it under the same key.
        case cancelled
    }

    public var kind: Kind
    /// What an operator reads: a stable code and a message naming the device and what to do.
    public var error: NBGWError

    public init(_ kind: Kind, _ error: NBGWError) {
        self.kind = kind
        self.error = error
    }

    /// True when the work may be sent again (under the same idempotency key).
    public var isRetryable: Bool { kind != .refused }

    public var description: String { "\(kind.rawValue): \(error)" }
}
