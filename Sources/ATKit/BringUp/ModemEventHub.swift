import Synchronization

/// Turns a session's URC stream into ``ModemEvent``s for any number of subscribers, and keeps the
/// latest registration and a reboot count.
///
/// ``ATSession/urcs`` has a single consumer; the hub is it. Create one hub per session, right
/// after the session, and subscribe as many times as needed (the daemon's supervisor, a
/// ``ModemBringUp/waitForRegistration(events:within:pollInterval:)`` in progress). Subscriptions
/// end when the session closes or when the subscribing task stops iterating.
///
/// Ownership: all mutable state sits behind one lock; the consumer task only reads the stream and
/// publishes.
public final class ModemEventHub: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<ModemEvent>.Continuation] = [:]
        var rawSubscribers: [UInt64: AsyncStream<ATURC>.Continuation] = [:]
        var nextID: UInt64 = 0
        var latestRegistration: RegistrationStatus?
        var rebootCount = 0
        var finished = false
    }

    /// The state, in an object of its own: the consumer task and the subscriptions' termination
    /// handlers share it and must not keep the hub alive (its `deinit` stops the consumer).
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let consumer = Mutex<Task<Void, Never>?>(nil)

    /// Starts consuming `urcs` (normally ``ATSession/urcs``), decoding with `dialect`.
    public init(urcs: AsyncStream<ATURC>, dialect: ModemDialect) {
        let shared = self.shared
        let task = Task {
            for await urc in urcs {
                let event = ModemEvent(urc: urc, dialect: dialect)
                let (subscribers, raw) = shared.state.withLock { state in
                    switch event {
                    case .registration(let status): state.latestRegistration = status
                    case .rebooted: state.rebootCount += 1
                    default: break
                    }
                    return (Array(state.subscribers.values), Array(state.rawSubscribers.values))
                }
                for subscriber in raw {
                    subscriber.yield(urc)
                }
                for subscriber in subscribers {
                    subscriber.yield(event)
                }
            }
            let (subscribers, raw) = shared.state.withLock { state in
                state.finished = true
                defer {
                    state.subscribers.removeAll()
                    state.rawSubscribers.removeAll()
                }
                return (Array(state.subscribers.values), Array(state.rawSubscribers.values))
            }
            for subscriber in raw {
                subscriber.finish()
            }
            for subscriber in subscribers {
                subscriber.finish()
            }
        }
        consumer.withLock { $0 = task }
    }

    deinit {
        consumer.withLock { $0?.cancel() }
    }

    /// A new stream of the events from now on. It keeps the newest `limit` undelivered events.
    public func subscribe(limit: Int = 256) -> AsyncStream<ModemEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ModemEvent.self,
            bufferingPolicy: .bufferingNewest(max(1, limit))
        )
        let id: UInt64? = shared.state.withLock { state in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [shared] _ in
            _ = shared.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// A new stream of the URCs themselves, as the module sent them (an operator's console shows
    /// them), from now on; it keeps the newest `limit` undelivered ones.
    public func subscribeURCs(limit: Int = 256) -> AsyncStream<ATURC> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ATURC.self,
            bufferingPolicy: .bufferingNewest(max(1, limit))
        )
        let id: UInt64? = shared.state.withLock { state in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.rawSubscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [shared] _ in
            _ = shared.state.withLock { $0.rawSubscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// The last registration URC seen.
    public var latestRegistration: RegistrationStatus? { shared.state.withLock { $0.latestRegistration } }

    /// How many boot markers have been seen.
    public var rebootCount: Int { shared.state.withLock { $0.rebootCount } }

    /// Whether the URC stream has ended (the session closed).
    public var isFinished: Bool { shared.state.withLock { $0.finished } }
}
