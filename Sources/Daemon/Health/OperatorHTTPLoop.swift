import Foundation
import NBGWCore
import PosixSupport
import Synchronization

#if canImport(Glibc)
import Glibc
// glibc's socket names (MSG_NOSIGNAL, …): CLinux includes <sys/socket.h>, and in a whole-module
// (release) build a name from it resolves only in files that import CLinux.
import CLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// The socket side of ``OperatorHTTPServer``: one thread in `poll()` (an ``FDPoller`` rebuilt each
/// round) over the listening socket, its connections and a ``WakePipe``. It accepts, reads each
/// request head, hands complete requests to ``requests`` (answered by the server's tasks through
/// ``respond(to:with:)``), writes the responses and closes. Nothing here blocks: every socket is
/// non-blocking.
///
/// Why a thread and not an event-loop library: the endpoint answers a scrape every few seconds;
/// one parked thread costs a few kilobytes, where starting NIO's event loops for it cost the daemon
/// about 2 MB of resident memory (docs/operations.md, "Memory").
///
/// State: `connections`, `nextID` and `acceptPausedUntil` belong to the poll thread alone (hence
/// `@unchecked Sendable`); everything other threads touch is in `shared` and `wake`.
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
    }

    /// Tokens of the poll set besides the connections' (their ids, from 1).
    private static let wakeToken = UInt64.max
    private static let listenerToken = UInt64.max - 1

    let requests: AsyncStream<Accepted>
    private let requestSink: AsyncStream<Accepted>.Continuation
    private let listenFD: Int32
    private let wake: WakePipe
    private let limits: OperatorHTTPServer.Limits
    private let shared = Mutex(Shared())
    /// Every descriptor is closed.
    private let closed = LoopClosedSignal()
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 0
    private var acceptPausedUntil: UInt64 = 0

    /// Takes ownership of `listenFD` (closed when the loop ends).
    init(listenFD: Int32, limits: OperatorHTTPServer.Limits) throws(OperatorHTTPServerError) {
        do {
            wake = try WakePipe()
        } catch {
            close(listenFD)
            throw .resources(reason: "no wake pipe: \(error)")
        }
        self.listenFD = listenFD
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
        wake.wake()
    }

    /// Stops the loop and returns once the listener and every connection are closed (the port is
    /// free again). ``requests`` alone does not say so: its iteration also ends when the consuming
    /// task is cancelled.
    func stopAndWait() async {
        stop()
        await closed.wait()
    }

    /// The handler's answer to request `id`; ignored when the connection is gone.
    func respond(to id: UInt64, with response: OperatorHTTPResponse) {
        shared.withLock { $0.responses.append((id, response)) }
        // After the loop ended this writes nothing (the pipe's descriptor numbers may belong to
        // someone else already).
        wake.wake()
    }

    // MARK: The poll thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var poller = FDPoller()
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

            // The wake pipe first, then the listener, then the connections: the order of the
            // events below.
            poller.removeAll()
            poller.watch(wake.readEnd, for: .readable, token: Self.wakeToken)
            let now = Posix.monotonicNanoseconds()
            let accepting = connections.count < limits.maxConnections && now >= acceptPausedUntil
            if accepting { poller.watch(listenFD, for: .readable, token: Self.listenerToken) }
            var earliest = accepting ? UInt64.max : acceptPausedUntil
            for (id, connection) in connections {
                earliest = min(earliest, connection.deadline)
                switch connection.phase {
                case .reading: poller.watch(connection.fd, for: .readable, token: id)
                case .writing: poller.watch(connection.fd, for: .writable, token: id)
                case .handling: continue
                }
            }
            let timeout: Int32 =
                earliest == .max ? -1 : Int32(clamping: (earliest > now ? earliest - now : 0) / 1_000_000 + 1)
            let count: Int
            do {
                count = try poller.wait(timeoutMilliseconds: timeout)
            } catch {
                // EINTR, or ENOMEM (the kernel's table for the call): the next round may get it.
                // Anything else is a bug in the set built above; stop rather than spin.
                if error.code == EINTR || error.code == ENOMEM { continue }
                break
            }

            for index in 0..<count {
                switch poller.event(at: index).token {
                case Self.wakeToken:
                    wake.drain()
                case Self.listenerToken:
                    acceptAll()
                case let id:
                    guard let connection = connections[id] else { continue }
                    switch connection.phase {
                    case .reading: receive(id, buffer: &buffer)
                    case .writing: flush(id)
                    case .handling: break
                    }
                }
            }
            expire(now: Posix.monotonicNanoseconds())
        }
        for connection in connections.values { close(connection.fd) }
        connections.removeAll()
        close(listenFD)
        requestSink.finish()
        // Later wakes (a handler answering late) write nothing from here on.
        wake.close()
        closed.signal()
    }

    private func acceptAll() {
        while connections.count < limits.maxConnections {
            let fd: Int32
            switch Posix.acceptConnection(listenFD) {
            case .connection(let accepted): fd = accepted
            case .none: return
            case .outOfResources:
                acceptPausedUntil = Posix.monotonicNanoseconds() + 100_000_000
                return
            }
            nextID += 1
            connections[nextID] = Connection(fd: fd, deadline: deadline(after: limits.headTimeout))
        }
    }

    private func deadline(after timeout: Duration) -> UInt64 {
        Posix.monotonicNanoseconds() + UInt64(max(0, timeout.inMilliseconds)) * 1_000_000
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
            connections[id]?.deadline = deadline(after: limits.requestTimeout)
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
}
