import HummingbirdCore
import Synchronization

/// The listener's connection count and its cap: Hummingbird stops accepting while ``isFull`` and
/// starts again as connections close (waiting clients sit in the kernel's backlog meanwhile,
/// holding none of the daemon's descriptors). The count is shared with whoever reports it.
public struct ListenerConnectionBudget: AvailableConnectionsDelegate {
    /// Connections open now and the most seen at once, shared by every copy.
    public final class Count: Sendable {
        let state = Mutex<(open: Int, peak: Int)>((0, 0))

        public init() {}

        public var open: Int { state.withLock { $0.open } }
        public var peak: Int { state.withLock { $0.peak } }
    }

    public let limit: Int
    public let count: Count

    public init(limit: Int, count: Count = Count()) {
        self.limit = limit
        self.count = count
    }

    public mutating func connectionOpened() {
        count.state.withLock { state in
            state.open += 1
            state.peak = max(state.peak, state.open)
        }
    }

    public mutating func connectionClosed() {
        count.state.withLock { $0.open -= 1 }
    }

    public func isAcceptingNewConnections() -> Bool {
        count.open < limit
    }
}
