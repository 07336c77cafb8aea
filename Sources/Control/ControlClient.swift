import Foundation
import NBGWCore

#if canImport(Glibc)
import Glibc
#endif

/// A connection to `nbgwd`'s control socket, for the CLI and tests: blocking I/O with deadlines
/// (`poll(2)`), one request at a time, server events handed to the caller as they come.
///
/// ```swift
/// let client = try ControlClient.connect(to: "/run/nbgw/control.sock")
/// let answer: ControlATResult = try client.request(ControlRequest(id: 1, op: .at, modem: imei, command: "AT+CSQ"))
/// try client.follow { line in print(line) ; return true }     // after a `watch` request
/// ```
///
/// Every failure is an ``NBGWError``: `DAEMON_NOT_RUNNING` (no socket, nobody listening, the daemon
/// went away), `PERMISSION_DENIED` (naming the group to join), `TIMEOUT`, or the error the daemon
/// answered with.
public final class ControlClient {
    /// The socket.
    public let fd: Int32
    public let path: String
    /// The server's greeting.
    public private(set) var hello: ControlHello
    private var buffer: [UInt8] = []
    private var nextID = 0

    private init(fd: Int32, path: String, hello: ControlHello) {
        self.fd = fd
        self.path = path
        self.hello = hello
    }

    deinit {
        close(fd)
    }

    /// Connects and reads the greeting (within `timeout`).
    public static func connect(to path: String, timeout: Duration = .seconds(5)) throws(NBGWError) -> ControlClient {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw NBGWError(.internalError, "cannot make a Unix socket: \(String(cString: strerror(errno)))")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw NBGWError(.invalidArgument, "the control socket path \(path) is too long for a Unix socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if status != 0 {
            let code = errno
            close(fd)
            throw connectError(path: path, errno: code)
        }
        let client = ControlClient(
            fd: fd,
            path: path,
            hello: ControlHello(daemon: "", version: "", protocol: 0, pid: 0, user: "", store: "")
        )
        let deadline = ContinuousClock.now + timeout
        guard let line = try client.readLine(until: deadline) else {
            throw NBGWError(
                .daemonNotRunning,
                "the daemon closed \(path) without a greeting; check `journalctl -u nbgwd`"
            )
        }
        let head = try client.head(line)
        if let error = head.error { throw client.nbgwError(error) }
        guard head.type == .hello,
            let hello = try? ControlJSON.decoder().decode(ControlReply<ControlHello>.self, from: Data(line)).result
        else {
            throw NBGWError(.internalError, "\(path) did not greet as nbgwd does (protocol \(ControlProtocol.version))")
        }
        client.hello = hello
        return client
    }

    /// Why `connect(2)` to `path` failed, in the operator's terms.
    static func connectError(path: String, errno code: Int32) -> NBGWError {
        switch code {
        case ENOENT, ECONNREFUSED, ENOTDIR:
            return NBGWError(
                .daemonNotRunning,
                "no daemon answers on \(path) (\(String(cString: strerror(code)))): start it (`systemctl start nbgwd`), "
                    + "or point NBGW_CONTROL at its [control] socket"
            )
        case EACCES, EPERM:
            var info = stat()
            let group: String
            if stat(path, &info) == 0, let entry = getgrgid(info.st_gid), let name = entry.pointee.gr_name {
                group = String(cString: name)
            } else {
                group = "nbgw"
            }
            let user = getpwuid(geteuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "$USER"
            return NBGWError(
                .permissionDenied,
                "cannot connect to the daemon's control socket \(path): permission denied; join group \(group) "
                    + "(`sudo adduser \(user) \(group)`, then log in again)"
            )
        default:
            return NBGWError(
                .daemonNotRunning,
                "cannot connect to the daemon's control socket \(path): \(String(cString: strerror(code)))"
            )
        }
    }

    /// A fresh request id.
    public func newID() -> Int {
        nextID += 1
        return nextID
    }

    /// Sends `request` and returns its result, handing any event or URC line that comes first to
    /// `onEvent`. Throws the daemon's error as an ``NBGWError``.
    public func request<Result: Decodable & Sendable>(
        _ request: ControlRequest,
        as type: Result.Type = Result.self,
        timeout: Duration = .seconds(30),
        onEvent: (ControlReplyHead, [UInt8]) -> Void = { _, _ in }
    ) throws(NBGWError) -> Result {
        try send(request)
        let deadline = ContinuousClock.now + timeout
        while true {
            guard let line = try readLine(until: deadline) else {
                throw NBGWError(.daemonNotRunning, "the daemon closed the control connection before answering")
            }
            let head = try head(line)
            guard head.id == request.id, head.type == .result || head.type == .error else {
                onEvent(head, line)
                continue
            }
            if let error = head.error { throw nbgwError(error) }
            do {
                guard let result = try ControlJSON.decoder().decode(Envelope<Result>.self, from: Data(line)).result
                else {
                    throw NBGWError(.internalError, "the daemon's answer to \(request.op) has no result")
                }
                return result
            } catch let error as NBGWError {
                throw error
            } catch {
                throw NBGWError(.internalError, "cannot read the daemon's answer to \(request.op): \(error)")
            }
        }
    }

    /// Writes `request` as one line.
    public func send(_ request: ControlRequest) throws(NBGWError) {
        let bytes = ControlJSON.line(request)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw NBGWError(.daemonNotRunning, "the daemon went away (\(String(cString: strerror(errno))))")
            }
            offset += written
        }
    }

    /// Reads lines until `handler` returns false, the daemon closes the connection (returns
    /// normally) or `stop` (a descriptor, e.g. a signal pipe) becomes readable.
    public func follow(
        stop: Int32? = nil,
        _ handler: (ControlReplyHead, [UInt8]) throws(NBGWError) -> Bool
    )
        throws(NBGWError)
    {
        while true {
            while let line = takeLine() {
                if try !handler(try head(line), line) { return }
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            if let stop { fds.append(pollfd(fd: stop, events: Int16(POLLIN), revents: 0)) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                throw NBGWError(.internalError, "poll on the control socket: \(String(cString: strerror(errno)))")
            }
            if fds.count > 1, fds[1].revents != 0 { return }
            if fds[0].revents != 0, try !fill() { return }
        }
    }

    /// The next complete line already received, if any (no I/O).
    public func takeLine() -> [UInt8]? {
        guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = Array(buffer[..<end])
        buffer.removeSubrange(...end)
        return line
    }

    /// Reads what the socket has (one `read`): false at end of stream.
    public func fill() throws(NBGWError) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer += chunk[0..<count]
                if buffer.count > ControlProtocol.maxLineBytes * 4, !buffer.contains(UInt8(ascii: "\n")) {
                    throw NBGWError(.internalError, "the daemon sent a line over \(ControlProtocol.maxLineBytes) bytes")
                }
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN { return true }
            throw NBGWError(.daemonNotRunning, "the daemon went away (\(String(cString: strerror(errno))))")
        }
    }

    /// The next line, waiting until `deadline`; nil at end of stream.
    func readLine(until deadline: ContinuousClock.Instant) throws(NBGWError) -> [UInt8]? {
        while true {
            if let line = takeLine() { return line }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                throw NBGWError(.timeout, "the daemon did not answer on \(path) in time; check `journalctl -u nbgwd`")
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            )
            let ready = poll(&fds, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw NBGWError(.internalError, "poll on the control socket: \(String(cString: strerror(errno)))")
            }
            if ready > 0, try !fill() { return nil }
        }
    }

    /// The fields every line has.
    public func head(_ line: [UInt8]) throws(NBGWError) -> ControlReplyHead {
        do {
            return try ControlJSON.decoder().decode(ControlReplyHead.self, from: Data(line))
        } catch {
            throw NBGWError(
                .internalError,
                "the daemon sent a line that is not protocol \(ControlProtocol.version): \(error)"
            )
        }
    }

    /// The result of an `event` or `urc` line.
    public func decode<Result: Decodable>(_ type: Result.Type, from line: [UInt8]) -> Result? {
        try? ControlJSON.decoder().decode(Envelope<Result>.self, from: Data(line)).result
    }

    func nbgwError(_ error: ControlError) -> NBGWError {
        NBGWError(ErrorCode(rawValue: error.code) ?? .internalError, error.message)
    }

    private struct Envelope<Result: Decodable>: Decodable {
        var result: Result?
    }
}
