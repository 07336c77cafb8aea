import Foundation
import Synchronization

/// A token bucket per key (the API key's name): `burst` requests at once, refilled at
/// `requestsPerSecond`. Time comes from an injected monotonic clock so tests never sleep.
public final class TokenBucketRateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: Duration
    }

    public let requestsPerSecond: Double
    public let burst: Int
    private let now: @Sendable () -> Duration
    /// One entry per API key name: bounded by the number of keys.
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(requestsPerSecond: Double, burst: Int, now: @escaping @Sendable () -> Duration) {
        self.requestsPerSecond = max(requestsPerSecond, 0.001)
        self.burst = max(burst, 1)
        self.now = now
    }

    /// Takes one token from `key`'s bucket. Returns nil when allowed, otherwise how long until a
    /// token is available.
    public func acquire(_ key: String) -> Duration? {
        let time = now()
        return buckets.withLock { buckets in
            take(from: &buckets, key: key, at: time)
        }
    }

    private func take(from buckets: inout [String: Bucket], key: String, at time: Duration) -> Duration? {
        var bucket = buckets[key] ?? Bucket(tokens: Double(burst), updated: time)
        let elapsed = max(
            0,
            Double((time - bucket.updated).components.seconds)
                + Double((time - bucket.updated).components.attoseconds) / 1e18
        )
        bucket.tokens = min(Double(burst), bucket.tokens + elapsed * requestsPerSecond)
        bucket.updated = time
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
        buckets[key] = bucket
        let wait = (1 - bucket.tokens) / requestsPerSecond
        return .milliseconds(Int64((wait * 1000).rounded(.up)))
    }
}
