import Registry
import Synchronization

/// `/healthz`'s and `nbgw_store_up`'s question "could a bind be written now?"
/// (``Registry/writability(wait:minimumFreeBytes:)``), asked at most once per ``interval``.
///
/// Why a cache: a monitoring probe, a load balancer and Prometheus may each ask every second, and
/// every answer takes the store's write lock for a moment (up to 200 ms when another writer holds
/// it). Within ``interval`` they share one answer; callers that arrive while the store is being
/// asked wait for that answer instead of asking again.
final class StoreWritabilityProbe: Sendable {
    /// Why 1 s: the shortest interval health checks are usually configured with, so a probe every
    /// second asks the store once, and a change (a lock taken, the disk filling) shows within a second.
    static let defaultInterval: Duration = .seconds(1)

    private let probe: @Sendable () -> StoreWritability
    private let now: @Sendable () -> Duration
    private let interval: Duration
    private let last = Mutex<(at: Duration, answer: StoreWritability)?>(nil)

    /// - Parameters:
    ///   - probe: asks the store (``Registry/writability(wait:minimumFreeBytes:)``).
    ///   - now: a monotonic clock (time since any fixed moment); injected so tests move it.
    init(
        interval: Duration = StoreWritabilityProbe.defaultInterval,
        now: @escaping @Sendable () -> Duration,
        probe: @escaping @Sendable () -> StoreWritability
    ) {
        self.interval = interval
        self.now = now
        self.probe = probe
    }

    /// The store's ``Registry/writability(wait:minimumFreeBytes:)`` on the monotonic clock.
    convenience init(registry: Registry) {
        let started = ContinuousClock.now
        self.init(now: { started.duration(to: .now) }) { registry.writability() }
    }

    /// The last answer while it is younger than ``interval``, else a new one.
    func current() -> StoreWritability {
        last.withLock { last in
            let time = now()
            if let last, last.at <= time, time - last.at < interval { return last.answer }
            let answer = probe()
            last = (time, answer)
            return answer
        }
    }
}
