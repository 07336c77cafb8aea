import NIOCore
import Synchronization

/// Every open connection of one listener: who it is from, and since when it has been idle (no
/// request in flight). Two rules live here:
///
/// - **per client**: a client address holds at most ``limitPerClient`` connections (a trusted
///   proxy's address, in ``exempt``, is not counted);
/// - **idle ones make room**: above ``evictAbove`` connections, the longest-idle ones are closed.
///   An idle connection costs the client nothing to reopen and a request in flight is never
///   touched, so a flood of idle or half-sent connections from many addresses (every local user
///   can connect from any 127.x.y.z) cannot keep a client that sends a request from being served.
///   Before this rule, 3,000 idle connections from 100 loopback addresses held all 512 places and
///   every bind over the API timed out (tools/soak/soak.py).
public final class ListenerConnectionTable: Sendable {
    struct Entry {
        let channel: any Channel
        let client: String
        /// Nil while a request is in flight.
        var idleSince: NIODeadline?
    }

    struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var perClient: [String: Int] = [:]
        var refused = 0
        var evicted = 0
    }

    public let limitPerClient: Int
    public let evictAbove: Int
    public let exempt: Set<String>
    private let state = Mutex(State())

    public init(limitPerClient: Int, evictAbove: Int, exempt: Set<String> = []) {
        self.limitPerClient = max(1, limitPerClient)
        self.evictAbove = max(1, evictAbove)
        self.exempt = exempt
    }

    /// Records a new connection from `client`, idle from `now`; false (nothing recorded) when the
    /// client already holds its share. Above ``evictAbove``, the longest-idle connections are closed.
    public func admit(_ channel: any Channel, client: String, now: NIODeadline) -> Bool {
        let victims = state.withLock { state -> [any Channel]? in
            if !exempt.contains(client) {
                let count = state.perClient[client, default: 0]
                guard count < limitPerClient else {
                    state.refused += 1
                    return nil
                }
                state.perClient[client] = count + 1
            }
            state.entries[ObjectIdentifier(channel)] = Entry(channel: channel, client: client, idleSince: now)
            let excess = state.entries.count - evictAbove
            guard excess > 0 else { return [] }
            let idle = state.entries.filter { $0.value.idleSince != nil && $0.key != ObjectIdentifier(channel) }
                .sorted { $0.value.idleSince! < $1.value.idleSince! }
                .prefix(excess)
            state.evicted += idle.count
            return idle.map(\.value.channel)
        }
        guard let victims else { return false }
        for victim in victims { victim.close(promise: nil) }
        return true
    }

    /// A request started on `channel`: it is not idle until its answer is written.
    public func busy(_ channel: any Channel) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.idleSince = nil }
    }

    /// `channel` finished its answer at `now` and waits for the next request.
    public func idle(_ channel: any Channel, now: NIODeadline) {
        state.withLock { $0.entries[ObjectIdentifier(channel)]?.idleSince = now }
    }

    /// `channel` closed.
    public func release(_ channel: any Channel) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: ObjectIdentifier(channel)) else { return }
            guard !exempt.contains(entry.client) else { return }
            let count = state.perClient[entry.client, default: 0] - 1
            state.perClient[entry.client] = count > 0 ? count : nil
        }
    }

    /// Connections open now, those with a request in flight, and those of `client`.
    public var open: Int { state.withLock { $0.entries.count } }
    public var busy: Int { state.withLock { $0.entries.values.filter { $0.idleSince == nil }.count } }
    public func count(of client: String) -> Int { state.withLock { $0.perClient[client, default: 0] } }
    /// Connections refused for their client's share, and idle ones closed to make room, since start.
    public var refused: Int { state.withLock { $0.refused } }
    public var evicted: Int { state.withLock { $0.evicted } }
}
