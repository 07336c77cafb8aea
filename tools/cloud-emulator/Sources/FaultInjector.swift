import Foundation

/// The emulator's live fault plan: counts go down as faults fire. Thread-safe.
public final class FaultInjector: @unchecked Sendable {
    public enum Fault: String, Sendable, CaseIterable {
        case serverError = "server_errors"
        case rateLimit = "rate_limits"
        case dropConnection = "drop_connections"
        case dropAfterProcessing = "drop_after_processing"
        case expiredToken = "expired_tokens"
        case busy = "busy_responses"
    }

    private let lock = NSLock()
    private var plan: EmulatorFaults
    private var fired: [Fault: Int] = [:]

    public init(_ plan: EmulatorFaults) { self.plan = plan }

    /// The current plan (remaining counts).
    public var current: EmulatorFaults { lock.withLock { plan } }

    /// Replaces the plan. `expire_all_tokens` is a one-shot action the caller performs; it is not kept.
    public func set(_ new: EmulatorFaults) {
        lock.withLock {
            plan = new
            plan.expireAllTokens = false
        }
    }

    /// How many times each fault fired since start.
    public var firedCounts: [String: Int] {
        lock.withLock { Dictionary(uniqueKeysWithValues: fired.map { ($0.key.rawValue, $0.value) }) }
    }

    /// Consumes one occurrence of `fault` if any is left.
    public func take(_ fault: Fault) -> Bool {
        lock.withLock {
            let remaining: Int
            switch fault {
            case .serverError: remaining = plan.serverErrors
            case .rateLimit: remaining = plan.rateLimits
            case .dropConnection: remaining = plan.dropConnections
            case .dropAfterProcessing: remaining = plan.dropAfterProcessing
            case .expiredToken: remaining = plan.expiredTokens
            case .busy: remaining = plan.busyResponses
            }
            guard remaining > 0 else { return false }
            switch fault {
            case .serverError: plan.serverErrors -= 1
            case .rateLimit: plan.rateLimits -= 1
            case .dropConnection: plan.dropConnections -= 1
            case .dropAfterProcessing: plan.dropAfterProcessing -= 1
            case .expiredToken: plan.expiredTokens -= 1
            case .busy: plan.busyResponses -= 1
            }
            fired[fault, default: 0] += 1
            return true
        }
    }
}
