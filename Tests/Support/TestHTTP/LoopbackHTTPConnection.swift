import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 connection to a server on loopback, written byte by byte as a test says: a body
/// can be sent in parts with pauses between them (an upload held open while another request runs),
/// or generated as it goes (tens of MiB without holding them). Every blocking call runs on a thread
/// of its own, never on Swift's cooperative threads (the server under test may need them).
public final class LoopbackHTTPConnection: @unchecked Sendable {
    // @unchecked: `fd` is set once in init; the calls on it, and on `buffered` (bytes read past the
    // last response), are made one at a time by the test.
    private let fd: Int32
    private var buffered: [UInt8] = []

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// An answer: status, header fields (names lower-cased, in order) and body.
    public struct Response: Sendable {
        public var status: Int
        public var fields: [(name: String, value: String)]
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The first field named `name` (any case).
        public func header(_ name: String) -> String? {
            fields.first { $0.name == name.lowercased() }?.value
        }
        /// Every field named `name` (any case), in order.
        public func headers(_ name: String) -> [String] {
            fields.filter { $0.name == name.lowercased() }.map(\.value)
        }
        /// The body as a JSON object (empty when it is not one).
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
        }
    }

    /// Connects to `host:port`.
    ///
    /// - Parameter timeout: how long a read waits for the server before the test fails (a server
    ///   that never answers fails the test instead of hanging it).
    public init(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(60)) async throws {
        fd = try await Self.onThread {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
            var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                let code = errno
                Glibc.close(fd)
                throw Failure(description: "connect to \(host):\(port): errno \(code)")
            }
            return fd
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends the request line and headers (`Host` added).
    public func sendHead(_ method: String, _ path: String, headers: [String: String]) async throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try await send(Array(head.utf8))
    }

    /// Sends `bytes` as they are.
    public func send(_ bytes: [UInt8]) async throws {
        let fd = self.fd
        try await Self.onThread { try Self.writeAll(fd, bytes) }
    }

    /// Sends a body of `chunks()` parts until it returns nil, as they come (`chunked`: each part in
    /// chunked transfer coding, then the last chunk).
    public func sendBody(chunked: Bool, _ chunks: @escaping @Sendable () -> [UInt8]?) async throws {
        let fd = self.fd
        try await Self.onThread {
            while let part = chunks() {
                if chunked {
                    guard !part.isEmpty else { continue }
                    try Self.writeAll(fd, Array((String(part.count, radix: 16) + "\r\n").utf8) + part + [13, 10])
                } else {
                    try Self.writeAll(fd, part)
                }
            }
            if chunked { try Self.writeAll(fd, Array("0\r\n\r\n".utf8)) }
        }
    }

    /// Reads one response (its body by `Content-Length`, chunked coding, or to the end).
    public func readResponse() async throws -> Response {
        let fd = self.fd
        let start = buffered
        let (response, rest) = try await Self.onThread { try Self.read(fd, start: start) }
        buffered = rest
        return response
    }

    /// One request with a small body on a connection of its own.
    public static func request(
        port: Int,
        _ method: String,
        _ path: String,
        headers: [String: String] = [:],
        body: [UInt8] = []
    ) async throws -> Response {
        let connection = try await LoopbackHTTPConnection(port: port)
        var all = headers
        if !body.isEmpty || method == "POST" { all["Content-Length"] = String(body.count) }
        try await connection.sendHead(method, path, headers: all)
        if !body.isEmpty { try await connection.send(body) }
        return try await connection.readResponse()
    }

    // MARK: Blocking parts

    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try work() })
            }
            thread.name = "test-http-client"
            thread.start()
        }
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send: errno \(errno) after \(offset) of \(bytes.count) bytes")
            }
            offset += written
        }
    }

    /// Reads a response from `fd` after the bytes `start` already read; returns it and what follows it.
    static func read(_ fd: Int32, start: [UInt8]) throws -> (Response, [UInt8]) {
        var data = start
        var closed = false
        func more() throws {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65536, 0) }
            if count < 0 {
                if errno == EINTR { return }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw Failure(description: "no answer within the read timeout (\(data.count) bytes so far)")
                }
                throw Failure(description: "recv: errno \(errno)")
            }
            if count == 0 { closed = true }
            data += chunk[0..<count]
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = data.firstRange(of: separator)?.upperBound
            if headEnd == nil {
                if closed { throw Failure(description: "the connection closed before a response head") }
                try more()
            }
        }
        let head = String(decoding: data[..<headEnd!], as: UTF8.self).split(separator: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "not an HTTP response: \(head.first ?? "")")
        }
        var fields: [(name: String, value: String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append(
                (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            )
        }
        let headers = Dictionary(fields.map { ($0.name, $0.value) }) { first, _ in first }
        var rest = Array(data[headEnd!...])
        data = rest
        if let length = headers["content-length"].flatMap(Int.init) {
            while data.count < length && !closed { try more() }
            rest = Array(data.dropFirst(length))
            return (Response(status: status, fields: fields, body: Data(data.prefix(length))), rest)
        }
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while true {
                var lineEnd = data.firstRange(of: [13, 10])
                while lineEnd == nil && !closed {
                    try more()
                    lineEnd = data.firstRange(of: [13, 10])
                }
                guard let end = lineEnd,
                    let size = Int(String(decoding: data[..<end.lowerBound], as: UTF8.self), radix: 16)
                else { throw Failure(description: "bad chunk size") }
                while data.count < end.upperBound + size + 2 && !closed { try more() }
                body += data[end.upperBound..<(end.upperBound + size)]
                data = Array(data[(end.upperBound + size + 2)...])
                if size == 0 { break }
            }
            return (Response(status: status, fields: fields, body: Data(body)), data)
        }
        while !closed { try more() }
        return (Response(status: status, fields: fields, body: Data(data)), [])
    }
}
