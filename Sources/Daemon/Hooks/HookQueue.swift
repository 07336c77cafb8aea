import Synchronization

/// The state changes waiting for their hooks: at most ``capacity``, the oldest dropped when a new
/// one comes to a full queue, handed to workers in order except that one port's changes are never
/// worked on two at a time (a port's hooks see its changes in the order they happened).
final class HookQueue: Sendable {
    let capacity: Int

    private struct State {
        var pending: [HookEvent] = []
        var busyPorts: Set<String> = []
        var waiters: [CheckedContinuation<HookEvent?, Never>] = []
        var finished = false

        /// Takes the first pending change whose port no worker holds, and holds its port.
        mutating func takeEligible() -> HookEvent? {
            guard let index = pending.firstIndex(where: { !busyPorts.contains($0.change.port) }) else { return nil }
            let event = pending.remove(at: index)
            busyPorts.insert(event.change.port)
            return event
        }

        /// Pairs waiting workers with changes they may take now.
        mutating func matches() -> [(CheckedContinuation<HookEvent?, Never>, HookEvent?)] {
            var handed: [(CheckedContinuation<HookEvent?, Never>, HookEvent?)] = []
            if finished {
                handed = waiters.map { ($0, nil) }
                waiters = []
                return handed
            }
            while !waiters.isEmpty, let event = takeEligible() {
                handed.append((waiters.removeFirst(), event))
            }
            return handed
        }
    }

    private let state = Mutex(State())

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Queues `event`; returns the change dropped to make room, if any.
    func push(_ event: HookEvent) -> HookEvent? {
        let (dropped, handed) = state.withLock {
            state -> (HookEvent?, [(CheckedContinuation<HookEvent?, Never>, HookEvent?)]) in
            guard !state.finished else { return (event, []) }
            state.pending.append(event)
            let dropped = state.pending.count > capacity ? state.pending.removeFirst() : nil
            return (dropped, state.matches())
        }
        for (waiter, event) in handed { waiter.resume(returning: event) }
        return dropped
    }

    /// The next change to work on, waiting for one; nil once ``finish()`` was called.
    func next() async -> HookEvent? {
        await withCheckedContinuation { continuation in
            let immediate: HookEvent?? = state.withLock { state in
                if state.finished { return .some(nil) }
                if let event = state.takeEligible() { return .some(event) }
                state.waiters.append(continuation)
                return .none
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// The worker is done with `event`: its port may be worked on again.
    func done(_ event: HookEvent) {
        let handed = state.withLock { state in
            state.busyPorts.remove(event.change.port)
            return state.matches()
        }
        for (waiter, event) in handed { waiter.resume(returning: event) }
    }

    /// No more changes: waiting workers get nil; returns the changes still pending (not run).
    @discardableResult
    func finish() -> [HookEvent] {
        let (left, handed) = state.withLock { state in
            state.finished = true
            let left = state.pending
            state.pending = []
            return (left, state.matches())
        }
        for (waiter, event) in handed { waiter.resume(returning: event) }
        return left
    }

    /// Changes waiting (not being worked on).
    var count: Int { state.withLock { $0.pending.count } }
}
