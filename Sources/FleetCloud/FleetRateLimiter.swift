import Synchronization

/// A token bucket per tenant, per node: `rate` requests a second with bursts of `burst`. Why per
/// node: a shared counter would put the database (or a second service) on every request's path;
/// with N nodes behind a balancer a tenant gets up to N × rate, which docs/fleet.md states.
public final class FleetRateLimiter: Sendable {
    public let rate: Double
    public let burst: Double
    private let buckets = Mutex<[String: (tokens: Double, at: ContinuousClock.Instant)]>([:])

    public init(rate: Double, burst: Int) {
        self.rate = rate
        self.burst = Double(burst)
    }

    /// Nil when `tenant` may go on now; else how long until it may.
    public func acquire(_ tenant: String) -> Duration? {
        guard rate > 0 else { return nil }
        let now = ContinuousClock.now
        return buckets.withLock { buckets in
            var bucket = buckets[tenant] ?? (burst, now)
            let elapsed = bucket.at.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * rate)
            bucket.at = now
            defer { buckets[tenant] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return .milliseconds(Int(((1 - bucket.tokens) / rate * 1000).rounded(.up)))
        }
    }
}
