/// Faults the emulator injects, set at start (command-line flags) or at run time
/// (`PUT /admin/faults`, ``FaultInjector/set(_:)``). Counts apply to the next N cloud requests
/// (admin requests are never faulted) and count down as they fire.
///
/// | Fault | What the client sees | What nbgw does |
/// |---|---|---|
/// | `latency_ms` | every answer that much later | waits; past the request timeout: a timeout, retried |
/// | `server_errors` | HTTP 503 | retries with backoff |
/// | `rate_limits` | HTTP 429 + `Retry-After` | retries after at least `Retry-After` |
/// | `drop_connections` | connection closed before the request is processed | transport error, retried |
/// | `drop_after_processing` | processed, then the connection closed unanswered | retried; the key replays the answer |
/// | `clock_skew_ms` | code 1013 beyond the allowed skew | fails at once: clock skew or wrong data center |
/// | `expired_tokens` | envelope code 1010 on business calls | fetches a new token once and resends |
/// | `busy_responses` | envelope code `busy_code` (1110, 1111, 1199) | retries with backoff |
/// | `expire_all_tokens` | (one shot) every issued access token is expired | 1010, then a new token |
public struct EmulatorFaults: Codable, Sendable, Equatable {
    public var latencyMs: Int
    public var serverErrors: Int
    public var rateLimits: Int
    public var retryAfterSeconds: Int
    public var dropConnections: Int
    public var dropAfterProcessing: Int
    public var clockSkewMs: Int64
    public var expiredTokens: Int
    public var busyResponses: Int
    public var busyCode: Int
    public var expireAllTokens: Bool

    public init(
        latencyMs: Int = 0,
        serverErrors: Int = 0,
        rateLimits: Int = 0,
        retryAfterSeconds: Int = 1,
        dropConnections: Int = 0,
        dropAfterProcessing: Int = 0,
        clockSkewMs: Int64 = 0,
        expiredTokens: Int = 0,
        busyResponses: Int = 0,
        busyCode: Int = 1111,
        expireAllTokens: Bool = false
    ) {
        self.latencyMs = latencyMs
        self.serverErrors = serverErrors
        self.rateLimits = rateLimits
        self.retryAfterSeconds = retryAfterSeconds
        self.dropConnections = dropConnections
        self.dropAfterProcessing = dropAfterProcessing
        self.clockSkewMs = clockSkewMs
        self.expiredTokens = expiredTokens
        self.busyResponses = busyResponses
        self.busyCode = busyCode
        self.expireAllTokens = expireAllTokens
    }

    enum CodingKeys: String, CodingKey {
        case latencyMs = "latency_ms"
        case serverErrors = "server_errors"
        case rateLimits = "rate_limits"
        case retryAfterSeconds = "retry_after_seconds"
        case dropConnections = "drop_connections"
        case dropAfterProcessing = "drop_after_processing"
        case clockSkewMs = "clock_skew_ms"
        case expiredTokens = "expired_tokens"
        case busyResponses = "busy_responses"
        case busyCode = "busy_code"
        case expireAllTokens = "expire_all_tokens"
    }

    /// Missing keys keep their defaults, so `{"server_errors": 2}` is a whole fault plan.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = EmulatorFaults()
        latencyMs = try container.decodeIfPresent(Int.self, forKey: .latencyMs) ?? defaults.latencyMs
        serverErrors = try container.decodeIfPresent(Int.self, forKey: .serverErrors) ?? defaults.serverErrors
        rateLimits = try container.decodeIfPresent(Int.self, forKey: .rateLimits) ?? defaults.rateLimits
        retryAfterSeconds =
            try container.decodeIfPresent(Int.self, forKey: .retryAfterSeconds) ?? defaults.retryAfterSeconds
        dropConnections = try container.decodeIfPresent(Int.self, forKey: .dropConnections) ?? defaults.dropConnections
        dropAfterProcessing =
            try container.decodeIfPresent(Int.self, forKey: .dropAfterProcessing) ?? defaults.dropAfterProcessing
        clockSkewMs = try container.decodeIfPresent(Int64.self, forKey: .clockSkewMs) ?? defaults.clockSkewMs
        expiredTokens = try container.decodeIfPresent(Int.self, forKey: .expiredTokens) ?? defaults.expiredTokens
        busyResponses = try container.decodeIfPresent(Int.self, forKey: .busyResponses) ?? defaults.busyResponses
        busyCode = try container.decodeIfPresent(Int.self, forKey: .busyCode) ?? defaults.busyCode
        expireAllTokens = try container.decodeIfPresent(Bool.self, forKey: .expireAllTokens) ?? defaults.expireAllTokens
    }
}
