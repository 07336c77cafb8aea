import Foundation
import Synchronization

/// The gateway's in-memory view of its supervisors: which port each one has, its state (for
/// ``Gateway/snapshot()`` and the gauges), which IMEI it claimed, and the state changes for
/// ``Gateway/stateChanges()``.
///
/// It also coordinates the interfaces of one USB module (same ``ModemPort/deviceKey``): when one
/// interface becomes the AT port of an IMEI, its siblings that have not answered anything yet are
/// told to stop, and an interface that reads an IMEI another live port already has stops too, so
/// one module never gets two supervisors.
///
/// Every method takes the lock briefly and never awaits while holding it.
final class SupervisorDirectory: Sendable {
    struct Entry {
        let id: UInt64
        let port: ModemPort
        let signal: StopSignal
        /// The operator's requests (reset, re-probe, release, resume).
        let mailbox = SupervisorMailbox()
        /// The AT session the supervisor has open, if any (operators' commands run on it).
        let live = LiveSessionSlot()
        var state: ModemState = .probing
        var stateSince = Date()
        var reason: ModemReason?
        var imei: String?
        var deviceID: String?
        var answered = false

        var status: ModemStatus {
            ModemStatus(
                port: port.path,
                imei: imei,
                state: state,
                stateSince: stateSince,
                reason: reason,
                deviceID: deviceID,
                supervised: true
            )
        }
    }

    enum Claim {
        case granted(siblings: [StopSignal])
        case heldBy(port: String)
    }

    private struct State {
        var running: [String: Entry] = [:]
        /// Ports whose supervisor ended (`notModem`, `absent`), until they appear again.
        var ended: [String: ModemState] = [:]
        /// IMEI → port of the supervisor that claimed it.
        var claims: [String: String] = [:]
        var nextID: UInt64 = 0
        var subscribers: [UInt64: AsyncStream<ModemStateChange>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    private let state = Mutex(State())
    private let metrics: GatewayMetrics

    init(metrics: GatewayMetrics) {
        self.metrics = metrics
        metrics.record([:])
    }

    /// Registers a supervisor for `port`; nil when one is already running for its path.
    func begin(_ port: ModemPort) -> Entry? {
        let (entry, counts) = state.withLock { state -> (Entry?, [ModemState: Int]) in
            guard state.running[port.path] == nil else { return (nil, [:]) }
            state.nextID += 1
            let entry = Entry(id: state.nextID, port: port, signal: StopSignal())
            state.running[port.path] = entry
            state.ended[port.path] = nil
            return (entry, Self.counts(state))
        }
        if entry != nil { metrics.record(counts) }
        return entry
    }

    /// The port of a running sibling interface (same device key) that already is the AT port of
    /// an IMEI, with that IMEI.
    func claimedSibling(of port: ModemPort) -> (port: String, imei: String)? {
        guard let key = port.deviceKey else { return nil }
        return state.withLock { state in
            for (imei, holder) in state.claims where holder != port.path {
                if let entry = state.running[holder], entry.port.deviceKey == key {
                    return (holder, imei)
                }
            }
            return nil
        }
    }

    /// Records a state change of supervisor `id` and announces it.
    func update(_ change: ModemStateChange, id: UInt64) {
        let (counts, subscribers) = state.withLock {
            state -> ([ModemState: Int], [AsyncStream<ModemStateChange>.Continuation]) in
            guard state.running[change.port]?.id == id else { return ([:], []) }
            if state.running[change.port]?.state != change.state { state.running[change.port]?.stateSince = Date() }
            state.running[change.port]?.state = change.state
            state.running[change.port]?.reason = change.reason
            if let imei = change.imei { state.running[change.port]?.imei = imei }
            if let deviceID = change.deviceID { state.running[change.port]?.deviceID = deviceID }
            return (Self.counts(state), Array(state.subscribers.values))
        }
        guard !subscribers.isEmpty || !counts.isEmpty else { return }
        metrics.record(counts)
        for subscriber in subscribers { subscriber.yield(change) }
    }

    /// The port answered `AT` for the first time.
    func markAnswered(path: String, id: UInt64) {
        state.withLock { state in
            if state.running[path]?.id == id { state.running[path]?.answered = true }
        }
    }

    /// Claims `imei` for the supervisor of `path`. Refused while another running supervisor holds
    /// it; when granted, returns the signals of the silent sibling interfaces to stop.
    func claim(imei: String, path: String, id: UInt64) -> Claim {
        state.withLock { state in
            if let holder = state.claims[imei], holder != path, state.running[holder] != nil {
                return .heldBy(port: holder)
            }
            state.claims[imei] = path
            guard let key = state.running[path]?.port.deviceKey else { return .granted(siblings: []) }
            let siblings = state.running.values.filter {
                $0.port.path != path && $0.port.deviceKey == key && !$0.answered && $0.id != id
            }
            return .granted(siblings: siblings.map(\.signal))
        }
    }

    /// Removes supervisor `id` of `path`, releasing its IMEI claims; `final` is the state the port
    /// keeps in ``snapshot()`` (nil: forgotten).
    func finish(path: String, id: UInt64, final: ModemState?) {
        let counts = state.withLock { state -> [ModemState: Int] in
            guard state.running[path]?.id == id else { return Self.counts(state) }
            state.running[path] = nil
            state.claims = state.claims.filter { $0.value != path }
            state.ended[path] = final
            return Self.counts(state)
        }
        metrics.record(counts)
    }

    /// Stops the supervisor of `path`; false when none is running.
    @discardableResult
    func stop(path: String, reason: StopReason) -> Bool {
        let signal = state.withLock { $0.running[path]?.signal }
        signal?.stop(reason)
        return signal != nil
    }

    /// Stops every running supervisor of `path`'s device that has not answered yet.
    func stop(_ signals: [StopSignal], reason: StopReason) {
        for signal in signals { signal.stop(reason) }
    }

    /// A port without a running supervisor vanished: it counts as absent from now on. Returns
    /// whether the gateway knew the port.
    func vanishedWithoutSupervisor(path: String) -> Bool {
        let (known, counts) = state.withLock { state -> (Bool, [ModemState: Int]) in
            guard state.ended[path] != nil else { return (false, [:]) }
            state.ended[path] = .absent
            return (true, Self.counts(state))
        }
        if known { metrics.record(counts) }
        return known
    }

    /// The running supervisor of the modem `key` names: an IMEI (15 digits) it claimed, or its port
    /// (as given, or any path that resolves to it: `/dev/serial/by-id/…`).
    func entry(for key: String, canonical: (String) -> String) -> Entry? {
        state.withLock { state in
            if key.utf8.count == 15, key.utf8.allSatisfy({ (48...57).contains($0) }) {
                if let holder = state.claims[key], let entry = state.running[holder] { return entry }
                return state.running.values.first { $0.imei == key }
            }
            if let entry = state.running[key] { return entry }
            let resolved = canonical(key)
            return state.running.values.first { $0.port.path == resolved || canonical($0.port.path) == resolved }
        }
    }

    /// Every running supervisor's module, and the ports whose supervisor ended, by port.
    func statuses() -> [ModemStatus] {
        state.withLock { state in
            var statuses = state.running.values.map(\.status)
            for (path, final) in state.ended where state.running[path] == nil {
                statuses.append(
                    ModemStatus(
                        port: path,
                        imei: nil,
                        state: final,
                        stateSince: nil,
                        reason: nil,
                        deviceID: nil,
                        supervised: false
                    )
                )
            }
            return statuses.sorted { $0.port < $1.port }
        }
    }

    /// Modems per state, every state present.
    func snapshot() -> [ModemState: Int] {
        state.withLock { Self.counts($0) }
    }

    /// Every known port's state.
    func states() -> [String: ModemState] {
        state.withLock { state in
            var states = state.ended
            for (path, entry) in state.running { states[path] = entry.state }
            return states
        }
    }

    /// A stream of every state change from now on (newest 1024 kept if the reader lags).
    func subscribe() -> AsyncStream<ModemStateChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ModemStateChange.self,
            bufferingPolicy: .bufferingNewest(1024)
        )
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every subscription (the gateway's run finished).
    func finishSubscriptions() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    private static func counts(_ state: State) -> [ModemState: Int] {
        var counts = Dictionary(uniqueKeysWithValues: ModemState.allCases.map { ($0, 0) })
        for entry in state.running.values { counts[entry.state, default: 0] += 1 }
        for final in state.ended.values { counts[final, default: 0] += 1 }
        return counts
    }
}
