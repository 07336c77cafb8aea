import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
// glibc's socket names (MSG_NOSIGNAL, …): CLinux includes <sys/socket.h>, and in a whole-module
// (release) build a name from it resolves only in files that import CLinux.
import CLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket side of ``OperatorHTTPServer``: one thread in `poll()` over the listening socket,
/// its connections and a wake pipe. It accepts, reads each request head, hands complete requests
/// to ``requests`` (answered by the server's tasks through ``respond(to:with:)``), writes the
/// responses and closes. Nothing here blocks: every socket is non-blocking.
///
/// Why a thread and not an event-loop library: the endpoint answers a scrape every few seconds;
/// one parked thread costs a few kilobytes, where starting NIO's event loops for it cost the daemon
/// about 2 MB of resident memory (docs/operations.md, "Memory").
///
/// State: `connections`, `nextID` and `acceptPausedUntil` belong to the poll thread alone (hence
/// `@unchecked Sendable`); everything other threads touch is in `shared`.
final class OperatorHTTPLoop: @unchecked Sendable {
    /// A complete, well-formed request waiting for its handler.
    struct Accepted: Sendable {
        let id: UInt64
        let request: OperatorHTTPRequest
    }

    private struct Connection {
        enum Phase {
            case reading
            /// The request is with its handler.
            case handling
            case writing(bytes: [UInt8], offset: Int)
        }

        let fd: Int32
        var received: [UInt8] = []
        var phase = Phase.reading
        var isHead = false
        /// Monotonic nanoseconds by which this connection must be done (slow clients are dropped).
        var deadline: UInt64
    }

    private struct Shared {
        var responses: [(id: UInt64, response: OperatorHTTPResponse)] = []
        var stopping = false
        /// Every descriptor is closed.
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let requests: AsyncStream<Accepted>
    private let requestSink: AsyncStream<Accepted>.Continuation
    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let limits: OperatorHTTPServer.Limits
    private let shared = Mutex(Shared())
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 0
    private var acceptPausedUntil: UInt64 = 0

    /// Takes ownership of `listenFD` (closed when the loop ends).
    init(listenFD: Int32, limits: OperatorHTTPServer.Limits) throws(OperatorHTTPServerError) {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listenFD)
            throw .resources(reason: "no wake pipe: \(reason)")
        }
        for fd in pipeFDs { Self.makeNonBlockingAndCloseOnExec(fd) }
        self.listenFD = listenFD
        self.wakeRead = pipeFDs[0]
        self.wakeWrite = pipeFDs[1]
        self.limits = limits
        (requests, requestSink) = AsyncStream.makeStream(of: Accepted.self)
    }

    /// Starts the poll thread. Call once.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "nbgwd-http"
        thread.start()
    }

    /// Asks the thread to close everything and finish ``requests``; returns at once.
    func stop() {
        shared.withLock { $0.stopping = true }
        wake()
    }

    /// Stops the loop and returns once the listener and every connection are closed (the port is
    /// free again). ``requests`` alone does not say so: its iteration also ends when the consuming
    /// task is cancelled.
    func stopAndWait() async {
        stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let closed = shared.withLock { shared in
                if !shared.closed { shared.closeWaiters.append(continuation) }
                return shared.closed
            }
            if closed { continuation.resume() }
        }
    }

    /// The handler's answer to request `id`; ignored when the connection is gone.
    func respond(to id: UInt64, with response: OperatorHTTPResponse) {
        shared.withLock { $0.responses.append((id, response)) }
        wake()
    }

    private func wake() {
        shared.withLock { shared in
            // After the loop ended the descriptor number may belong to someone else already.
            guard !shared.closed else { return }
            var byte: UInt8 = 1
            // EAGAIN (pipe full) is fine: the pipe is readable already, which is all that matters.
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: The poll thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let (stopping, responses) = shared.withLock { shared in
                defer { shared.responses.removeAll() }
                return (shared.stopping, shared.responses)
            }
            if stopping { break }
            for (id, response) in responses {
                guard var connection = connections[id], case .handling = connection.phase else { continue }
                connection.phase = .writing(bytes: response.serialized(includingBody: !connection.isHead), offset: 0)
                connections[id] = connection
                flush(id)
            }

            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            var ids: [UInt64] = []
            let now = Self.monotonicNanoseconds()
            let accepting = connections.count < limits.maxConnections && now >= acceptPausedUntil
            if accepting { fds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)) }
            var earliest = accepting ? UInt64.max : acceptPausedUntil
            for (id, connection) in connections {
                earliest = min(earliest, connection.deadline)
                switch connection.phase {
                case .reading: fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0))
                case .writing: fds.append(pollfd(fd: connection.fd, events: Int16(POLLOUT), revents: 0))
                case .handling: continue
                }
                ids.append(id)
            }
            let timeout: Int32 =
                earliest == .max ? -1 : Int32(clamping: (earliest > now ? earliest - now : 0) / 1_000_000 + 1)
            if poll(&fds, nfds_t(fds.count), timeout) < 0 {
                // EINTR, or ENOMEM (the kernel's table for the call): the next round may get it.
                // Anything else is a bug in the set built above; stop rather than spin.
                if errno == EINTR || errno == ENOMEM { continue }
                break
            }

            if fds[0].revents != 0 { drainWakePipe() }
            var first = 1
            if accepting {
                if fds[1].revents != 0 { acceptAll() }
                first = 2
            }
            for (index, id) in ids.enumerated() where fds[first + index].revents != 0 {
                guard let connection = connections[id] else { continue }
                switch connection.phase {
                case .reading: receive(id, buffer: &buffer)
                case .writing: flush(id)
                case .handling: break
                }
            }
            expire(now: Self.monotonicNanoseconds())
        }
        for connection in connections.values { close(connection.fd) }
        connections.removeAll()
        close(listenFD)
        requestSink.finish()
        let waiters = shared.withLock { shared in
            // The wake pipe is closed under the lock: `wake()` checks `closed` under it first.
            close(wakeRead)
            close(wakeWrite)
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
                    // Out of descriptors: the pending connection stays in the backlog, and polling
                    // the listener now would return at once, forever. Retry in 100 ms.
                    acceptPausedUntil = Self.monotonicNanoseconds() + 100_000_000
                    return
                default: return  // EAGAIN: nothing more pending
                }
            }
            Self.makeNonBlockingAndCloseOnExec(fd)
            nextID += 1
            connections[nextID] = Connection(fd: fd, deadline: deadline())
        }
    }

    private func deadline() -> UInt64 {
        Self.monotonicNanoseconds() + UInt64(limits.requestTimeout.components.seconds) * 1_000_000_000
            + UInt64(limits.requestTimeout.components.attoseconds / 1_000_000_000)
    }

    private func receive(_ id: UInt64, buffer: inout [UInt8]) {
        guard var connection = connections[id] else { return }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                connection.received += buffer[0..<count]
                let end = OperatorHTTPRequest.endOfHead(in: connection.received)
                connections[id] = connection
                if (end ?? connection.received.count) > limits.maxHeadBytes {
                    answer(id, .text(431, "the request head is over \(limits.maxHeadBytes) bytes"))
                    return
                }
                if let end {
                    dispatch(id, head: connection.received[..<end])
                    return
                }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                connections[id] = connection
                return
            }
            drop(id)  // EOF before a complete head, or a reset
            return
        }
    }

    private func dispatch(_ id: UInt64, head: ArraySlice<UInt8>) {
        do {
            let request = try OperatorHTTPRequest.parse(head: head)
            connections[id]?.isHead = request.method == "HEAD"
            connections[id]?.phase = .handling
            requestSink.yield(Accepted(id: id, request: request))
        } catch {
            answer(id, .text(400, "bad request: \(error.description)"))
        }
    }

    /// Answers from the poll thread itself (errors found before any handler).
    private func answer(_ id: UInt64, _ response: OperatorHTTPResponse) {
        connections[id]?.phase = .writing(bytes: response.serialized(includingBody: true), offset: 0)
        flush(id)
    }

    private func flush(_ id: UInt64) {
        guard var connection = connections[id], case .writing(let bytes, var offset) = connection.phase else { return }
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                // MSG_NOSIGNAL: a client that went away is EPIPE here, not a SIGPIPE for the daemon.
                send(connection.fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written >= 0 {
                offset += written
                continue
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                connection.phase = .writing(bytes: bytes, offset: offset)
                connections[id] = connection
                return
            }
            break
        }
        drop(id)
    }

    private func drop(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        close(connection.fd)
    }

    /// Connections past their deadline: a head that never completed gets a 408 (if the socket
    /// takes it at once), a handler that did not answer a 503, a response the client does not
    /// read is dropped.
    private func expire(now: UInt64) {
        for (id, connection) in connections where connection.deadline <= now {
            switch connection.phase {
            case .reading:
                let bytes = OperatorHTTPResponse.text(408, "the request head did not arrive in time").serialized(
                    includingBody: true
                )
                _ = bytes.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                drop(id)
            case .handling:
                let bytes = OperatorHTTPResponse.text(503, "the answer did not come in time").serialized(
                    includingBody: !connection.isHead
                )
                _ = bytes.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                drop(id)
            case .writing:
                drop(id)
            }
        }
    }

    /// (`pipe2` and `accept4` would do it atomically, but Glibc's module map leaves them out; the
    /// daemon starts no child processes, so no descriptor can leak through the gap.)
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
