/// Exponential backoff with a cap and jitter: after the `n`th consecutive failure the supervisor
/// waits `min(cap, initial × 2^(n−1))`, minus up to `jitter` of it at random.
///
/// ```
/// initial 1 s, cap 60 s, jitter 0:   1 s, 2 s, 4 s, 8 s, 16 s, 32 s, 60 s, 60 s, …
/// ```
public struct BackoffPolicy: Sendable, Hashable {
    public var initial: Duration
    public var cap: Duration
    /// 0…1: the random share of each delay.
    public var jitter: Double

    public init(initial: Duration, cap: Duration, jitter: Double = 0) {
        self.initial = max(.zero, initial)
        self.cap = max(self.initial, cap)
        self.jitter = min(1, max(0, jitter))
    }

    /// The delay after `failures` consecutive failures (1 for the first), with `random` in 0..<1
    /// choosing the jitter.
    public func delay(afterFailures failures: Int, random: Double) -> Duration {
        var delay = initial
        var step = 1
        while step < failures, delay < cap {
            delay = delay * 2
            step += 1
        }
        delay = min(delay, cap)
        let fraction = jitter * min(1, max(0, random))
        return delay * (1 - fraction)
    }

    /// The delay after `failures` failures with the system's random numbers.
    public func delay(afterFailures failures: Int) -> Duration {
        delay(afterFailures: failures, random: jitter > 0 ? Double.random(in: 0..<1) : 0)
    }
}
