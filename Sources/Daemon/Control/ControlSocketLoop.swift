import Foundation
import NBGWCore
import PosixSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The socket side of ``ControlServer``: one thread in `poll()` (an ``FDPoller`` rebuilt each round)
/// over the listening Unix socket, its connections and a ``WakePipe``. It accepts (recording each
/// peer's credentials), cuts what clients send into lines for ``events``, and writes what the
/// server queues with ``send(_:to:)``, never blocking: every socket is non-blocking.
///
/// A client that does not read never slows anyone: its queue is capped at ``Limits/maxQueuedBytes``
/// and the connection is dropped past it (the server's tasks, the supervisors behind them, only
/// ever append to a queue). A line over ``Limits/maxLineBytes`` closes the connection after an
/// error line.
///
/// Nobody can take the socket from the others (docs/control.md, "Limits"): a user holds at most
/// ``Limits/maxConnectionsPerUser`` connections, all users together ``Limits/maxConnections``,
/// and ``Limits/privilegedReserve`` more are kept for root and the daemon's own user; a connection
/// with no request in flight (``markBusy(_:_:)``) and nothing received for ``Limits/idleTimeout``
/// is closed. A refused connection gets one error line (``Limits/refusalLine``) and is closed.
///
/// Why a thread and not an event-loop library: the same reason as ``OperatorHTTPLoop`` (the
/// daemon's resident memory, docs/operations.md "Memory"); a few operators' connections need no more.
///
/// State: `connections`, `nextID` and `acceptPausedUntil` belong to the poll thread alone (hence
/// `@unchecked Sendable`); what other threads touch is in `shared` and `wake`.
final class ControlSocketLoop: @unchecked Sendable {
    struct Limits: Sendable {
        /// Connections of users other than root and the daemon's own.
        var maxConnections = 64
        /// Why 8: an operator runs a `--watch`, an interactive `nbgw at` and a script or two; 64
        /// idle connections from one member of the group starved everyone else's `nbgw at`.
        var maxConnectionsPerUser = 8
        /// Connections beyond ``maxConnections`` that only root and the daemon's user may open, so
        /// an administrator can always get in.
        var privilegedReserve = 4
        /// Why 10 minutes: an operator in an interactive `nbgw at` reads a datasheet between two
        /// commands; a script that crashed with its connection open is gone soon after.
        var idleTimeout: Duration = .seconds(600)
        var maxLineBytes = 64 * 1024
        /// Why 1 MiB: a `watch` of 64 modules through a burst of changes is tens of kilobytes; a
        /// client that lets a megabyte pile up is gone or stuck.
        var maxQueuedBytes = 1 << 20
        /// The line a refused connection gets before it is closed (the server formats it).
        var refusalLine: @Sendable (_ reason: String) -> [UInt8] = { Array(($0 + "\n").utf8) }
    }

    /// What happens on the socket, in order per connection.
    enum Event: Sendable {
        case opened(id: UInt64, peer: ControlPeer)
        /// A connection over a limit, answered and closed by the loop itself.
        case refused(peer: ControlPeer, reason: String)
        case line(id: UInt64, bytes: [UInt8])
        /// The client sent a line over the limit; the connection closes after the error line.
        case overlong(id: UInt64)
        case closed(id: UInt64, reason: String)
    }

    private struct Connection {
        let fd: Int32
        let uid: uid_t
        let privileged: Bool
        /// Monotonic nanoseconds of the last line received (or of the accept).
        var lastActivity: UInt64
        var received: [UInt8] = []
        /// Bytes queued but not written (moved here from `shared` by the poll thread).
        var pending: [UInt8] = []
        var closeWhenFlushed = false
    }

    private struct Shared {
        var queued: [UInt64: [UInt8]] = [:]
        var queuedBytes: [UInt64: Int] = [:]
        var closing: Set<UInt64> = []
        var dropping: [UInt64: String] = [:]
        /// Connections with a request in flight (a `watch` included): never idle.
        var busy: Set<UInt64> = []
        var stopping = false
    }

    /// Tokens of the poll set besides the connections' (their ids, from 1).
    private static let wakeToken = UInt64.max
    private static let listenerToken = UInt64.max - 1

    let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    private let listenFD: Int32
    private let wake: WakePipe
    private let limits: Limits
    private let privilegedUsers: Set<uid_t>
    private let shared = Mutex(Shared())
    /// Every descriptor is closed.
    private let closed = LoopClosedSignal()
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 0
    private var acceptPausedUntil: UInt64 = 0

    /// Takes ownership of `listenFD` (closed when the loop ends).
    ///
    /// - Parameter privilegedUsers: who may use ``Limits/privilegedReserve`` and is never capped per
    ///   user: root and the daemon's own user.
    init(
        listenFD: Int32,
        limits: Limits = Limits(),
        privilegedUsers: Set<uid_t> = [0, geteuid()]
    ) throws(ControlSocketError) {
        do {
            wake = try WakePipe()
        } catch {
            Posix.close(listenFD)
            throw .resources("no wake pipe: \(error)")
        }
        self.listenFD = listenFD
        self.limits = limits
        self.privilegedUsers = privilegedUsers
        (events, sink) = AsyncStream.makeStream(of: Event.self)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "nbgwd-control"
        thread.start()
    }

    /// Queues `bytes` for connection `id`; past ``Limits/maxQueuedBytes`` unsent, the connection is
    /// dropped instead. Returns at once.
    func send(_ bytes: [UInt8], to id: UInt64) {
        let limit = limits.maxQueuedBytes
        guard !closed.isClosed else { return }
        shared.withLock { shared in
            guard shared.dropping[id] == nil else { return }
            let total = (shared.queuedBytes[id] ?? 0) + bytes.count
            if total > limit {
                shared.queued[id] = nil
                shared.dropping[id] = "the client read nothing while \(total) bytes were waiting for it"
            } else {
                shared.queued[id, default: []] += bytes
                shared.queuedBytes[id] = total
            }
        }
        wake.wake()
    }

    /// Whether connection `id` has a request in flight (the server says so as its tasks start and
    /// end): a busy connection is never closed as idle.
    func markBusy(_ id: UInt64, _ busy: Bool) {
        shared.withLock { shared in
            if busy { shared.busy.insert(id) } else { shared.busy.remove(id) }
        }
        // The idle deadlines change: the poll thread recomputes its timeout.
        wake.wake()
    }

    /// Closes connection `id` once what is queued for it is written.
    func close(_ id: UInt64) {
        shared.withLock { _ = $0.closing.insert(id) }
        wake.wake()
    }

    /// Stops the loop and returns once the listener and every connection are closed.
    func stopAndWait() async {
        shared.withLock { $0.stopping = true }
        wake.wake()
        await closed.wait()
    }

    func stop() {
        shared.withLock { $0.stopping = true }
        wake.wake()
    }

    // MARK: The poll thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var poller = FDPoller()
        while true {
            let (stopping, queued, closing, dropping, busy) = shared.withLock { shared in
                defer {
                    shared.queued.removeAll()
                    shared.closing.removeAll()
                }
                return (shared.stopping, shared.queued, shared.closing, shared.dropping, shared.busy)
            }
            if stopping { break }
            for (id, reason) in dropping where connections[id] != nil { drop(id, reason: reason) }
            for (id, bytes) in queued {
                guard connections[id] != nil else {
                    shared.withLock { _ = $0.queuedBytes.removeValue(forKey: id) }
                    continue
                }
                connections[id]?.pending += bytes
                flush(id)
            }
            for id in closing {
                connections[id]?.closeWhenFlushed = true
                flush(id)
            }

            // The wake pipe first, then the listener, then the connections: the order of the
            // events below.
            poller.removeAll()
            poller.watch(wake.readEnd, for: .readable, token: Self.wakeToken)
            let now = Posix.monotonicNanoseconds()
            expireIdle(now: now, busy: busy)
            let accepting =
                connections.count < limits.maxConnections + limits.privilegedReserve && now >= acceptPausedUntil
            if accepting { poller.watch(listenFD, for: .readable, token: Self.listenerToken) }
            var earliest = accepting ? UInt64.max : acceptPausedUntil
            let idle = UInt64(max(0, limits.idleTimeout.inMilliseconds)) * 1_000_000
            for (id, connection) in connections {
                poller.watch(
                    connection.fd,
                    for: connection.pending.isEmpty ? .readable : [.readable, .writable],
                    token: id
                )
                if !busy.contains(id) { earliest = min(earliest, connection.lastActivity &+ idle) }
            }
            let timeout: Int32 =
                earliest == .max ? -1 : Int32(clamping: (earliest > now ? earliest - now : 0) / 1_000_000 + 1)
            let count: Int
            do {
                count = try poller.wait(timeoutMilliseconds: timeout)
            } catch {
                if error.code == EINTR || error.code == ENOMEM { continue }
                break
            }
            for index in 0..<count {
                let event = poller.event(at: index)
                switch event.token {
                case Self.wakeToken:
                    wake.drain()
                case Self.listenerToken:
                    acceptAll()
                case let id:
                    guard connections[id] != nil else { continue }
                    if event.events.contains(.writable) { flush(id) }
                    if !event.events.isDisjoint(with: [.readable, .hangUp, .error]), connections[id] != nil {
                        receive(id, buffer: &buffer)
                    }
                }
            }
        }
        for (id, connection) in connections {
            Posix.close(connection.fd)
            sink.yield(.closed(id: id, reason: "the daemon is stopping"))
        }
        connections.removeAll()
        Posix.close(listenFD)
        sink.finish()
        // Later wakes (a server task sending late) write nothing from here on.
        wake.close()
        closed.signal()
    }

    private func acceptAll() {
        while connections.count < limits.maxConnections + limits.privilegedReserve {
            let fd: Int32
            switch Posix.acceptConnection(listenFD) {
            case .connection(let accepted): fd = accepted
            case .none: return
            case .outOfResources:
                acceptPausedUntil = Posix.monotonicNanoseconds() + 100_000_000
                return
            }
            let peer = ControlPeer(fd: fd)
            let privileged = peer.uid != .max && privilegedUsers.contains(peer.uid)
            if !privileged, let reason = refusal(for: peer) {
                let line = limits.refusalLine(reason)
                // Best effort: a fresh socket's buffer takes one line; the client reads it or not.
                _ = line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Posix.close(fd)
                sink.yield(.refused(peer: peer, reason: reason))
                continue
            }
            nextID += 1
            connections[nextID] = Connection(
                fd: fd,
                uid: peer.uid,
                privileged: privileged,
                lastActivity: Posix.monotonicNanoseconds()
            )
            sink.yield(.opened(id: nextID, peer: peer))
        }
    }

    /// Why a connection of `peer` (neither root nor the daemon's user) is one too many, or nil.
    private func refusal(for peer: ControlPeer) -> String? {
        let unprivileged = connections.values.filter { !$0.privileged }
        if unprivileged.count >= limits.maxConnections {
            return "the control socket has \(limits.maxConnections) connections open: close one (or wait), "
                + "or use sudo (root keeps \(limits.privilegedReserve) connections of its own)"
        }
        let mine = unprivileged.filter { $0.uid == peer.uid }.count
        if mine >= limits.maxConnectionsPerUser {
            return "\(peer.user) has \(mine) connections to the control socket open, the most one user may: close "
                + "one (another `nbgw modems --watch` or `nbgw at` of yours, or a script)"
        }
        return nil
    }

    /// Closes connections with nothing in flight and nothing received for the idle timeout.
    private func expireIdle(now: UInt64, busy: Set<UInt64>) {
        let idle = UInt64(max(0, limits.idleTimeout.inMilliseconds)) * 1_000_000
        for (id, connection) in connections where !busy.contains(id) && connection.lastActivity &+ idle <= now {
            drop(id, reason: "idle for \(limits.idleTimeout) with no request in flight")
        }
    }

    private func receive(_ id: UInt64, buffer: inout [UInt8]) {
        guard var connection = connections[id] else { return }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                connection.lastActivity = Posix.monotonicNanoseconds()
                connection.received += buffer[0..<count]
                while let end = connection.received.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(connection.received[..<end])
                    connection.received.removeSubrange(...end)
                    if line.count > limits.maxLineBytes {
                        connections[id] = connection
                        sink.yield(.overlong(id: id))
                        return
                    }
                    sink.yield(.line(id: id, bytes: line))
                }
                if connection.received.count > limits.maxLineBytes {
                    connection.received.removeAll()
                    connections[id] = connection
                    sink.yield(.overlong(id: id))
                    return
                }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                connections[id] = connection
                return
            }
            connections[id] = connection
            drop(id, reason: count == 0 ? "the client closed the connection" : Errno.current.description)
            return
        }
    }

    private func flush(_ id: UInt64) {
        guard var connection = connections[id] else { return }
        while !connection.pending.isEmpty {
            let written = connection.pending.withUnsafeBytes { raw in
                Glibc.send(connection.fd, raw.baseAddress!, raw.count, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                connection.pending.removeFirst(written)
                shared.withLock { shared in
                    shared.queuedBytes[id] = max(0, (shared.queuedBytes[id] ?? 0) - written)
                }
                continue
            }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                connections[id] = connection
                return
            }
            connections[id] = connection
            drop(id, reason: "cannot write to the client: \(Errno.current)")
            return
        }
        connections[id] = connection
        if connection.closeWhenFlushed { drop(id, reason: "closed by the daemon") }
    }

    private func drop(_ id: UInt64, reason: String) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        Posix.close(connection.fd)
        shared.withLock { shared in
            shared.queued[id] = nil
            shared.queuedBytes[id] = nil
            shared.dropping[id] = nil
            shared.busy.remove(id)
        }
        sink.yield(.closed(id: id, reason: reason))
    }
}
