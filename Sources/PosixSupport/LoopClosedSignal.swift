import Synchronization

/// The moment an event loop's thread has closed everything it owned, for async callers to await.
///
/// A poll thread ends with ``signal()`` once its listener and connections are closed; a caller's
/// `stopAndWait()` wakes the thread and awaits ``wait()``, which returns at once when the loop has
/// already ended. Signalled once; later calls change nothing. Shared by the daemon's operator
/// HTTP server and its control socket, whose threads end the same way.
public final class LoopClosedSignal: Sendable {
    private struct State {
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether ``signal()`` has run.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Marks the loop closed and resumes everyone waiting.
    public func signal() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once ``signal()`` has run (at once if it already has).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = state.withLock { state in
                if !state.closed { state.waiters.append(continuation) }
                return state.closed
            }
            if closed { continuation.resume() }
        }
    }
}
