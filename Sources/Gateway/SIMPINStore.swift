import Synchronization

/// The gateway's current ``SIMPINBook``, replaced when the daemon reloads its config, with a way
/// to wait for the next replacement (a supervisor whose SIM is locked waits on it).
final class SIMPINStore: Sendable {
    private struct State {
        var book: SIMPINBook
        var version = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    init(_ book: SIMPINBook) {
        state = Mutex(State(book: book))
    }

    var book: SIMPINBook { state.withLock { $0.book } }
    var version: Int { state.withLock { $0.version } }

    /// Replaces the book and wakes every waiter.
    func replace(_ book: SIMPINBook) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.book = book
            state.version += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the book has changed after `version` (at once if it already has), or when the
    /// calling task is cancelled.
    func changed(since version: Int) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.version != version || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
