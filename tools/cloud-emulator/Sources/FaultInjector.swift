import Foundation
import Synchronization

/// The emulator's live fault plan: counts go down as faults fire. Thread-safe.
public final class FaultInjector: Sendable {
    public enum Fault: String, Sendable, CaseIterable {
        case serverError = "server_errors"
        case rateLimit = "rate_limits"
        case dropConnection = "drop_connections"
        case dropAfterProcessing = "drop_after_processing"
        case expiredToken = "expired_tokens"
        case busy = "busy_responses"
    }

    private struct State {
        var plan: EmulatorFaults
        var fired: [Fault: Int] = [:]
    }

    private let state: Mutex<State>

    public init(_ plan: EmulatorFaults) { self.state = Mutex(State(plan: plan)) }

    /// The current plan (remaining counts).
    public var current: EmulatorFaults { state.withLock { $0.plan } }

    /// Replaces the plan. `expire_all_tokens` is a one-shot action the caller performs; it is not kept.
    public func set(_ new: EmulatorFaults) {
        state.withLock { state in
            state.plan = new
            state.plan.expireAllTokens = false
        }
    }

    /// How many times each fault fired since start.
    public var firedCounts: [String: Int] {
        state.withLock { Dictionary(uniqueKeysWithValues: $0.fired.map { ($0.key.rawValue, $0.value) }) }
    }

    /// Consumes one occurrence of `fault` if any is left.
    public func take(_ fault: Fault) -> Bool {
        state.withLock { state in
            let remaining: Int
            switch fault {
            case .serverError: remaining = state.plan.serverErrors
            case .rateLimit: remaining = state.plan.rateLimits
            case .dropConnection: remaining = state.plan.dropConnections
            case .dropAfterProcessing: remaining = state.plan.dropAfterProcessing
            case .expiredToken: remaining = state.plan.expiredTokens
            case .busy: remaining = state.plan.busyResponses
            }
            guard remaining > 0 else { return false }
            switch fault {
            case .serverError: state.plan.serverErrors -= 1
            case .rateLimit: state.plan.rateLimits -= 1
            case .dropConnection: state.plan.dropConnections -= 1
            case .dropAfterProcessing: state.plan.dropAfterProcessing -= 1
            case .expiredToken: state.plan.expiredTokens -= 1
            case .busy: state.plan.busyResponses -= 1
            }
            state.fired[fault, default: 0] += 1
            return true
        }
    }
}
