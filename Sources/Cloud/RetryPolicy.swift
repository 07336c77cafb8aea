/// When and how long to wait before trying a cloud call again: the attempts of one call (an
/// adapter's HTTP client) and the spacing of an outbox row's later tries (`Provisioning`).
///
/// Which failures are worth a retry is the adapter's to say (TuyaCloud's `RetryPolicy+Tuya.swift`
/// for the Tuya-style cloud). For that cloud: retried (pairing-anchors §1.6): transport failures (refused, reset or dropped connections,
/// timeouts), HTTP 5xx and 429, and the envelope codes `500` (system error), `1110` (concurrent
/// requests over the limit), `1111` (system busy) and `1199` (requests too frequent). Never retried:
/// `1004` (sign invalid), `1013` (request time invalid), `1001`/`1005` (secret or client id
/// invalid) and every other code: the same request would fail the same way. Codes `1010`/`1011`
/// (token expired or invalid) are not retries: the client fetches a new token once and resends.
///
/// The delay after the n-th failed attempt is "equal jitter" exponential backoff: with
/// `cap = min(maximumDelay, initialDelay × multiplier^(n-1))` the delay is `cap/2 + jitter × cap/2`,
/// `jitter` uniform in [0, 1). Why half fixed: a flood of gateways that all lost the cloud at the
/// same moment spreads out, yet none retries immediately. A `Retry-After` header (429, 503) raises
/// the delay to what the server asked for, up to ``maximumRetryAfter``.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts per call, the first included.
    public var maxAttempts: Int
    public var initialDelay: Duration
    public var maximumDelay: Duration
    public var multiplier: Double
    /// The longest `Retry-After` honoured; a server asking for more gets this.
    public var maximumRetryAfter: Duration

    public init(
        maxAttempts: Int = 5,
        initialDelay: Duration = .milliseconds(250),
        maximumDelay: Duration = .seconds(8),
        multiplier: Double = 2,
        maximumRetryAfter: Duration = .seconds(30)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = max(1, multiplier)
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// Five attempts, 250 ms doubling to at most 8 s: a call gives up after roughly 2–4 s of
    /// waiting plus the request timeouts.
    public static let standard = RetryPolicy()

    /// One attempt only (still re-authenticating once on an expired token).
    public static let noRetries = RetryPolicy(maxAttempts: 1)

    /// The pause after `attempt` (1-based) failed, before the next one.
    ///
    /// - Parameters:
    ///   - jitter: a number in [0, 1); injected so tests are deterministic.
    ///   - retryAfter: the server's `Retry-After`, when it sent one.
    public func delay(afterAttempt attempt: Int, jitter: Double, retryAfter: Duration? = nil) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let uncapped = initialDelay.seconds * pow2(multiplier, exponent)
        let cap = min(maximumDelay.seconds, uncapped)
        let unit = min(max(jitter, 0), 1)
        var delay = cap / 2 + unit * cap / 2
        if let retryAfter {
            delay = max(delay, min(retryAfter.seconds, maximumRetryAfter.seconds))
        }
        return .milliseconds(Int64((delay * 1000).rounded()))
    }

    private func pow2(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 {
            result *= base
            remaining -= 1
            if result > 1e9 { break }
        }
        return result
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    package var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    package var wholeMilliseconds: Int64 {
        let (whole, attoseconds) = components
        return whole * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
