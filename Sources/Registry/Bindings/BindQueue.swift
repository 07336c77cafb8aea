import NBGWCore
import Synchronization

/// The binds waiting for the store's writer, handed over in groups
/// (``Registry/Bindings-swift.struct/bindInGroup(_:timeout:queueForCloud:)``).
///
/// Callers append and suspend; whoever appends to an idle queue leads: it commits a group's worth
/// and, when its own bind is answered, hands the lead to the oldest waiting request. Seeing the
/// queue empty and marking it idle happen under one lock, so a request is never left without a
/// leader.
final class BindQueue: Sendable {
    /// One caller's bind and where its result goes.
    struct Request: Sendable {
        let id: UInt64
        let command: BindCommand
        /// The caller's activation budget; the request's share of it is over at `deadline`.
        let timeout: Duration
        let deadline: ContinuousClock.Instant
        /// Whether a bind that changes something also queues its cloud `bind` outbox row.
        let queueForCloud: Bool
        let reply: CheckedContinuation<Turn, Never>
    }

    /// What a waiting request is woken with.
    enum Turn: Sendable {
        /// Its group committed (or failed): the result.
        case done(Result<Registry.SyncedChange<BindOutcome>, NBGWError>)
        /// It leads the next group (``Registry/leadGroups(until:)``).
        case lead
    }

    private struct State {
        var waiting: [Request] = []
        var draining = false
        var lastID: UInt64 = 0
        var groups = 0
        var binds = 0
    }

    private let state = Mutex(State())

    /// A fresh request id.
    func nextID() -> UInt64 {
        state.withLock { state in
            state.lastID += 1
            return state.lastID
        }
    }

    /// Queues `request`; true when the queue was idle and the caller leads.
    func append(_ request: Request) -> Bool {
        state.withLock { state in
            state.waiting.append(request)
            if state.draining { return false }
            state.draining = true
            return true
        }
    }

    /// Up to `limit` requests, oldest first (a leader's own request is among them).
    func take(limit: Int) -> [Request] {
        state.withLock { state in
            let count = min(limit, state.waiting.count)
            guard count > 0 else { return [] }
            state.groups += 1
            state.binds += count
            let group = Array(state.waiting.prefix(count))
            state.waiting.removeFirst(count)
            return group
        }
    }

    /// Returns requests to the head of the queue, in their order (a group that gave up waiting for
    /// the lock before their budgets ran out). Only the leader calls it, so the queue keeps a leader.
    func putBack(_ requests: [Request]) {
        guard !requests.isEmpty else { return }
        state.withLock { state in state.waiting.insert(contentsOf: requests, at: 0) }
    }

    /// The request that leads next: the oldest waiting one, left in the queue (it takes itself in
    /// its first group); nil when none waits, and the queue is idle from then on.
    func nextLeader() -> Request? {
        state.withLock { state in
            guard let first = state.waiting.first else {
                state.draining = false
                return nil
            }
            return first
        }
    }

    /// Requests waiting for the writer now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Groups taken and binds in them since the store was opened (how well binds coalesce).
    var totals: (groups: Int, binds: Int) { state.withLock { ($0.groups, $0.binds) } }

    /// Holds the queue as if a group were being committed, so that binds submitted meanwhile queue
    /// up and ``resumeHeld()`` hands them to one leader as one group (what load does; tests make
    /// it deterministic with this, without blocking a thread). False when a group is in progress.
    func hold() -> Bool {
        state.withLock { state in
            if state.draining { return false }
            state.draining = true
            return true
        }
    }

    /// Ends ``hold()``: the oldest queued bind leads (or the queue goes idle).
    func resumeHeld() {
        nextLeader()?.reply.resume(returning: .lead)
    }
}
