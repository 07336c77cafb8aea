import Synchronization

@testable import ATKit

/// Records events from a callback and lets a test wait for one, instead of sleeping.
final class EventRecorder<Event: Sendable>: Sendable {
    private struct Waiter {
        let matches: @Sendable (Event) -> Bool
        let continuation: CheckedContinuation<Event, Never>
    }

    private struct State {
        var events: [Event] = []
        var consumed = 0
        var waiters: [Waiter] = []
    }

    private let state = Mutex(State())

    init() {}

    var events: [Event] { state.withLock { $0.events } }

    func record(_ event: Event) {
        let ready = state.withLock { state -> [CheckedContinuation<Event, Never>] in
            state.events.append(event)
            let ready = state.waiters.filter { $0.matches(event) }.map(\.continuation)
            state.waiters.removeAll { $0.matches(event) }
            return ready
        }
        for continuation in ready {
            continuation.resume(returning: event)
        }
    }

    /// The first recorded event (past or future) that matches.
    @discardableResult
    func first(where matches: @escaping @Sendable (Event) -> Bool) async -> Event {
        await withCheckedContinuation { continuation in
            let found = state.withLock { state -> Event? in
                if let event = state.events.first(where: matches) { return event }
                state.waiters.append(Waiter(matches: matches, continuation: continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }
}
