import Foundation
import NBGWCore
import Synchronization

/// A token bucket per key (an API key's name, a client's address): `burst` requests at once,
/// refilled at `requestsPerSecond`. Time comes from an injected monotonic clock so tests never sleep.
///
/// With ``maxKeys`` the table is bounded (keys an attacker picks, such as addresses): past it, full
/// buckets (keys quiet long enough to have refilled) are forgotten; when none is, a new key is
/// refused until one is, so a flood of new keys costs memory up to the bound and no more.
public final class TokenBucketRateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: Duration
    }

    public let requestsPerSecond: Double
    public let burst: Int
    /// The most keys remembered; nil for no bound (API key names: bounded by the store).
    public let maxKeys: Int?
    private let now: @Sendable () -> Duration
    /// One entry per key: bounded by ``maxKeys``, or by the number of API keys.
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(
        requestsPerSecond: Double,
        burst: Int,
        maxKeys: Int? = nil,
        now: @escaping @Sendable () -> Duration
    ) {
        self.requestsPerSecond = max(requestsPerSecond, 0.001)
        self.burst = max(burst, 1)
        self.maxKeys = maxKeys.map { max($0, 1) }
        self.now = now
    }

    /// Keys remembered now.
    public var count: Int { buckets.withLock { $0.count } }

    /// Takes one token from `key`'s bucket. Returns nil when allowed, otherwise how long until a
    /// token is available.
    public func acquire(_ key: String) -> Duration? {
        let time = now()
        return buckets.withLock { buckets in
            take(from: &buckets, key: key, at: time)
        }
    }

    private func take(from buckets: inout [String: Bucket], key: String, at time: Duration) -> Duration? {
        if buckets[key] == nil, let maxKeys, buckets.count >= maxKeys {
            buckets = buckets.filter { refilled($0.value, at: time) < Double(burst) }
            if buckets.count >= maxKeys {
                // Every remembered key is still spending: a new one waits until one has refilled.
                return .seconds(1)
            }
        }
        var bucket = buckets[key] ?? Bucket(tokens: Double(burst), updated: time)
        bucket.tokens = refilled(bucket, at: time)
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

    /// The tokens `bucket` holds at `time`.
    private func refilled(_ bucket: Bucket, at time: Duration) -> Double {
        min(Double(burst), bucket.tokens + max(0, (time - bucket.updated).inSeconds) * requestsPerSecond)
    }
}
