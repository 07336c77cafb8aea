import Synchronization

/// A count of requests waiting on this node (event long polls), bounded by the caller's limit.
final class CloudServerWaiters: Sendable {
    private let count = Mutex(0)

    /// Counts one more waiter unless `limit` are waiting; false when they are.
    func enter(limit: Int) -> Bool {
        count.withLock { value in
            guard value < limit else { return false }
            value += 1
            return true
        }
    }

    func leave() {
        count.withLock { $0 -= 1 }
    }
}
