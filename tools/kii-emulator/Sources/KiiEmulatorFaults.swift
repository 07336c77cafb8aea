import Foundation
import Synchronization

/// Faults the Kii emulator injects, set at start (flags) or while running (`PUT /admin/faults`).
/// Counts apply to the next N Kii requests (admin requests are never faulted) and count down as
/// they fire. The same faults as `nbgw-cloud-emulator`'s, but for the Tuya-only ones (clock skew,
/// busy codes): Kii has no request signatures and no busy codes.
///
/// | Fault | The client sees |
/// |---|---|
/// | `latency_ms` | every answer that much later |
/// | `server_errors` | HTTP 503 |
/// | `rate_limits` | HTTP 429 + `Retry-After` |
/// | `drop_connections` | the connection closed before the request is processed |
/// | `drop_after_processing` | a state-changing request processed, then the connection closed unanswered |
/// | `expired_tokens` | HTTP 401 `WRONG_TOKEN` on an authenticated request, as for an expired token |
public struct KiiEmulatorFaults: Codable, Sendable, Equatable {
    public var latencyMs: Int
    public var serverErrors: Int
    public var rateLimits: Int
    public var retryAfterSeconds: Int
    public var dropConnections: Int
    public var dropAfterProcessing: Int
    public var expiredTokens: Int

    public init(
        latencyMs: Int = 0,
        serverErrors: Int = 0,
        rateLimits: Int = 0,
        retryAfterSeconds: Int = 1,
        dropConnections: Int = 0,
        dropAfterProcessing: Int = 0,
        expiredTokens: Int = 0
    ) {
        self.latencyMs = latencyMs
        self.serverErrors = serverErrors
        self.rateLimits = rateLimits
        self.retryAfterSeconds = retryAfterSeconds
        self.dropConnections = dropConnections
        self.dropAfterProcessing = dropAfterProcessing
        self.expiredTokens = expiredTokens
    }

    enum CodingKeys: String, CodingKey {
        case latencyMs = "latency_ms"
        case serverErrors = "server_errors"
        case rateLimits = "rate_limits"
        case retryAfterSeconds = "retry_after_seconds"
        case dropConnections = "drop_connections"
        case dropAfterProcessing = "drop_after_processing"
        case expiredTokens = "expired_tokens"
    }

    /// Missing keys keep their defaults, so `{"server_errors": 2}` is a whole fault plan.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func value(_ key: CodingKeys, _ fallback: Int) throws -> Int {
            try container.decodeIfPresent(Int.self, forKey: key) ?? fallback
        }
        latencyMs = try value(.latencyMs, 0)
        serverErrors = try value(.serverErrors, 0)
        rateLimits = try value(.rateLimits, 0)
        retryAfterSeconds = try value(.retryAfterSeconds, 1)
        dropConnections = try value(.dropConnections, 0)
        dropAfterProcessing = try value(.dropAfterProcessing, 0)
        expiredTokens = try value(.expiredTokens, 0)
    }
}

/// The live fault plan: counts go down as faults fire. Thread-safe.
public final class KiiFaultInjector: Sendable {
    public enum Fault: String, Sendable, CaseIterable {
        case serverError = "server_errors"
        case rateLimit = "rate_limits"
        case dropConnection = "drop_connections"
        case dropAfterProcessing = "drop_after_processing"
        case expiredToken = "expired_tokens"
    }

    private struct State {
        var plan: KiiEmulatorFaults
        var fired: [Fault: Int] = [:]
    }

    private let state: Mutex<State>

    public init(_ plan: KiiEmulatorFaults) { state = Mutex(State(plan: plan)) }

    public var current: KiiEmulatorFaults { state.withLock { $0.plan } }

    public func set(_ plan: KiiEmulatorFaults) { state.withLock { $0.plan = plan } }

    /// How many times each fault fired since start.
    public var firedCounts: [String: Int] {
        state.withLock { state in Dictionary(uniqueKeysWithValues: state.fired.map { ($0.key.rawValue, $0.value) }) }
    }

    /// Consumes one occurrence of `fault` if any is left.
    public func take(_ fault: Fault) -> Bool {
        state.withLock { state in
            let path: WritableKeyPath<KiiEmulatorFaults, Int> =
                switch fault {
                case .serverError: \.serverErrors
                case .rateLimit: \.rateLimits
                case .dropConnection: \.dropConnections
                case .dropAfterProcessing: \.dropAfterProcessing
                case .expiredToken: \.expiredTokens
                }
            guard state.plan[keyPath: path] > 0 else { return false }
            state.plan[keyPath: path] -= 1
            state.fired[fault, default: 0] += 1
            return true
        }
    }
}
