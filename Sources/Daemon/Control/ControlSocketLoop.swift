import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif
#if canImport(CLinux)
import CLinux
#endif

/// The socket side of ``ControlServer``: one thread in `poll()` over the listening Unix socket, its
/// connections and a wake pipe. It accepts (recording each peer's credentials), cuts what clients
/// send into lines for ``events``, and writes what the server queues with ``send(_:to:)``, never
/// blocking: every socket is non-blocking.
///
/// A client that does not read never slows anyone: its queue is capped at ``Limits/maxQueuedBytes``
/// and the connection is dropped past it (the server's tasks, the supervisors behind them, only
/// ever append to a queue). A line over ``Limits/maxLineBytes`` closes the connection after an
/// error line.
///
/// Why a thread and not an event-loop library: the same reason as ``OperatorHTTPLoop`` (the
/// daemon's resident memory, docs/operations.md "Memory"); a few operators' connections need no more.
///
/// State: `connections`, `nextID` and `acceptPausedUntil` belong to the poll thread alone (hence
/// `@unchecked Sendable`); what other threads touch is in `shared`.
final class ControlSocketLoop: @unchecked Sendable {
    struct Limits: Sendable {
        var maxConnections = 64
        var maxLineBytes = 64 * 1024
        /// Why 1 MiB: a `watch` of 64 modules through a burst of changes is tens of kilobytes; a
        /// client that lets a megabyte pile up is gone or stuck.
        var maxQueuedBytes = 1 << 20
    }

    /// What happens on the socket, in order per connection.
    enum Event: Sendable {
        case opened(id: UInt64, peer: ControlPeer)
        case line(id: UInt64, bytes: [UInt8])
        /// The client sent a line over the limit; the connection closes after the error line.
        case overlong(id: UInt64)
        case closed(id: UInt64, reason: String)
    }

    private struct Connection {
        let fd: Int32
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
        var stopping = false
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation
    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let limits: Limits
    private let shared = Mutex(Shared())
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 0
    private var acceptPausedUntil: UInt64 = 0

    /// Takes ownership of `listenFD` (closed when the loop ends).
    init(listenFD: Int32, limits: Limits = Limits()) throws(ControlSocketError) {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(listenFD)
            throw .resources("no wake pipe: \(reason)")
        }
        for fd in pipeFDs { Self.makeNonBlockingAndCloseOnExec(fd) }
        self.listenFD = listenFD
        self.wakeRead = pipeFDs[0]
        self.wakeWrite = pipeFDs[1]
        self.limits = limits
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
        shared.withLock { shared in
            guard !shared.closed, shared.dropping[id] == nil else { return }
            let total = (shared.queuedBytes[id] ?? 0) + bytes.count
            if total > limit {
                shared.queued[id] = nil
                shared.dropping[id] = "the client read nothing while \(total) bytes were waiting for it"
            } else {
                shared.queued[id, default: []] += bytes
                shared.queuedBytes[id] = total
            }
        }
        wake()
    }

    /// Closes connection `id` once what is queued for it is written.
    func close(_ id: UInt64) {
        shared.withLock { _ = $0.closing.insert(id) }
        wake()
    }

    /// Stops the loop and returns once the listener and every connection are closed.
    func stopAndWait() async {
        shared.withLock { $0.stopping = true }
        wake()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = shared.withLock { shared in
                if !shared.closed { shared.closeWaiters.append(continuation) }
                return shared.closed
            }
            if closed { continuation.resume() }
        }
    }

    func stop() {
        shared.withLock { $0.stopping = true }
        wake()
    }

    private func wake() {
        shared.withLock { shared in
            guard !shared.closed else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: The poll thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let (stopping, queued, closing, dropping) = shared.withLock { shared in
                defer {
                    shared.queued.removeAll()
                    shared.closing.removeAll()
                }
                return (shared.stopping, shared.queued, shared.closing, shared.dropping)
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

            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            var ids: [UInt64] = []
            let now = Self.monotonicNanoseconds()
            let accepting = connections.count < limits.maxConnections && now >= acceptPausedUntil
            if accepting { fds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)) }
            for (id, connection) in connections {
                var events = Int16(POLLIN)
                if !connection.pending.isEmpty { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: connection.fd, events: events, revents: 0))
                ids.append(id)
            }
            let timeout: Int32 =
                accepting ? -1 : Int32(clamping: (acceptPausedUntil - min(now, acceptPausedUntil)) / 1_000_000 + 1)
            if poll(&fds, nfds_t(fds.count), timeout) < 0 {
                if errno == EINTR || errno == ENOMEM { continue }
                break
            }
            if fds[0].revents != 0 { drainWakePipe() }
            var first = 1
            if accepting {
                if fds[1].revents != 0 { acceptAll() }
                first = 2
            }
            for (index, id) in ids.enumerated() {
                let revents = fds[first + index].revents
                guard revents != 0, connections[id] != nil else { continue }
                if revents & Int16(POLLOUT) != 0 { flush(id) }
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, connections[id] != nil {
                    receive(id, buffer: &buffer)
                }
            }
        }
        for (id, connection) in connections {
            Glibc.close(connection.fd)
            sink.yield(.closed(id: id, reason: "the daemon is stopping"))
        }
        connections.removeAll()
        Glibc.close(listenFD)
        sink.finish()
        let waiters = shared.withLock { shared in
            Glibc.close(wakeRead)
            Glibc.close(wakeWrite)
            shared.closed = true
            defer { shared.closeWaiters.removeAll() }
            return shared.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func drainWakePipe() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &sink, sink.count) > 0 {}
    }

    private func acceptAll() {
        while connections.count < limits.maxConnections {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    acceptPausedUntil = Self.monotonicNanoseconds() + 100_000_000
                    return
                default: return
                }
            }
            Self.makeNonBlockingAndCloseOnExec(fd)
            nextID += 1
            connections[nextID] = Connection(fd: fd)
            sink.yield(.opened(id: nextID, peer: ControlPeer(fd: fd)))
        }
    }

    private func receive(_ id: UInt64, buffer: inout [UInt8]) {
        guard var connection = connections[id] else { return }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
            if count > 0 {
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
            drop(id, reason: count == 0 ? "the client closed the connection" : String(cString: strerror(errno)))
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
            drop(id, reason: "cannot write to the client: \(String(cString: strerror(errno)))")
            return
        }
        connections[id] = connection
        if connection.closeWhenFlushed { drop(id, reason: "closed by the daemon") }
    }

    private func drop(_ id: UInt64, reason: String) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        Glibc.close(connection.fd)
        shared.withLock { shared in
            shared.queued[id] = nil
            shared.queuedBytes[id] = nil
            shared.dropping[id] = nil
        }
        sink.yield(.closed(id: id, reason: reason))
    }

    private static func makeNonBlockingAndCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
