import Synchronization

/// An operator's requests to one supervisor (reset, re-probe, release, resume), in order.
///
/// The supervisor races each phase of its life (an attempt, a backoff, a release, having given
/// up) against ``next()``; a request ends the phase. One consumer at a time: ``next()`` is called
/// by one task of the supervisor, never two at once.
final class SupervisorMailbox: Sendable {
    /// A request with who made it.
    struct Request: Sendable, Hashable {
        var action: ModemAction
        /// The operator (the control socket peer's user).
        var requester: String
    }

    private struct State {
        var queue: [Request] = []
        var waiter: (id: UInt64, continuation: CheckedContinuation<Request?, Never>)?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Queues `request`, or hands it to the waiting ``next()``.
    func post(_ request: Request) {
        let waiter = state.withLock { state -> CheckedContinuation<Request?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.queue.append(request)
            return nil
        }
        waiter?.resume(returning: request)
    }

    /// Puts back a request that a finished phase took but did not act on: it comes out first.
    func putBack(_ request: Request) {
        let waiter = state.withLock { state -> CheckedContinuation<Request?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter.continuation
            }
            state.queue.insert(request, at: 0)
            return nil
        }
        waiter?.resume(returning: request)
    }

    /// The next request; nil when the calling task is cancelled.
    func next() async -> Request? {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Request?, Never>) in
                let now: Request?? = state.withLock { state in
                    if !state.queue.isEmpty { return .some(state.queue.removeFirst()) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiter = (id, continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Request?, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: nil)
        }
    }
}
