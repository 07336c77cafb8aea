import Synchronization

/// Which of the daemon's services are inside their `run()`, so a shutdown that overruns its grace
/// period can say what did not stop.
public final class ServiceTracker: Sendable {
    private let running = Mutex<[String]>([])
    private let overran = Mutex<[String]?>(nil)
    private let cancelled = Mutex<[String]>([])

    public init() {}

    /// Records that `name` entered `run()`.
    public func started(_ name: String) {
        running.withLock { $0.append(name) }
    }

    /// Records that `name` left `run()`.
    public func finished(_ name: String) {
        running.withLock { names in
            if let index = names.firstIndex(of: name) { names.remove(at: index) }
        }
    }

    /// Services still running, in start order.
    public var runningServices: [String] {
        running.withLock { $0 }
    }

    /// Records the services still running when the grace period ended.
    public func recordOverrun(_ services: [String]) {
        overran.withLock { $0 = services }
    }

    /// Records that `name` ended because the group cancelled it during graceful shutdown: it
    /// overran the grace period and stopped only when cancelled.
    public func cancelledWhileStopping(_ name: String) {
        cancelled.withLock { $0.append(name) }
    }

    /// The services the group had to cancel during graceful shutdown, or nil when none.
    public var cancelledWhileStopping: [String]? {
        cancelled.withLock { $0.isEmpty ? nil : $0 }
    }

    /// The services that overran the grace period, or nil when shutdown kept to it.
    public var overrun: [String]? {
        overran.withLock { $0 }
    }
}
