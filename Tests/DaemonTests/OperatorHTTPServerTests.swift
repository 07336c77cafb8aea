import Daemon
import Foundation
import Logging
import Prometheus
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The operator endpoint's HTTP server, on a real loopback socket: what a Prometheus scrape, `curl`
/// and a misbehaving client each get.
@Suite("Operator HTTP server")
struct OperatorHTTPServerTests {
    /// Runs the server `make` builds (given the callback that reports its port) until `body`
    /// returns, then cancels it and waits for `run()` to end.
    static func serving<T: Sendable>(
        _ make: (@escaping @Sendable (ListenAddress) async -> Void) -> OperatorHTTPServer,
        _ body: (Int) async throws -> T
    ) async throws -> T {
        let (bound, boundSink) = AsyncStream.makeStream(of: Int.self)
        let server = make { boundSink.yield($0.port) }
        let run = Task { try await server.run() }
        var ports = bound.makeAsyncIterator()
        guard let port = await ports.next() else { throw Failure("the server never listened") }
        do {
            let result = try await body(port)
            run.cancel()
            try await run.value
            return result
        } catch {
            run.cancel()
            _ = try? await run.value
            throw error
        }
    }

    static func serving<T: Sendable>(
        limits: OperatorHTTPServer.Limits = .init(),
        handler: @escaping @Sendable (OperatorHTTPRequest) async -> OperatorHTTPResponse,
        _ body: (Int) async throws -> T
    ) async throws -> T {
        try await serving(
            {
                OperatorHTTPServer(
                    listen: .init(host: "127.0.0.1", port: 0),
                    limits: limits,
                    handler: handler,
                    onListening: $0
                )
            },
            body
        )
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Connects, sends `request` (in pieces, `pause` apart, when given), and reads until the server
    /// closes. The socket calls block, and no cooperative thread may.
    static func exchange(port: Int, _ pieces: [[UInt8]], pause: Duration = .zero) async -> String {
        await withCheckedContinuation { continuation in
            // A thread of its own: blocked dispatch workers would starve the cooperative pool
            // the server's handlers run on (libdispatch adds workers for blocked ones only slowly).
            Thread {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = UInt16(port).bigEndian
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                var timeout = timeval(tv_sec: 10, tv_usec: 0)
                _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard connected == 0 else {
                    close(fd)
                    continuation.resume(returning: "connect failed: errno \(errno)")
                    return
                }
                for (index, piece) in pieces.enumerated() {
                    if index > 0, pause > .zero {
                        // A client that sends slowly (the point of the test), on its own thread.
                        usleep(UInt32(pause.components.attoseconds / 1_000_000_000_000))
                    }
                    _ = piece.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                var response: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    response += buffer[0..<count]
                }
                close(fd)
                continuation.resume(returning: String(decoding: response, as: UTF8.self))
            }.start()
        }
    }

    static func exchange(port: Int, _ text: String) async -> String {
        await exchange(port: port, [Array(text.utf8)])
    }

    static let echo: @Sendable (OperatorHTTPRequest) async -> OperatorHTTPResponse = { request in
        .text(200, "\(request.method) \(request.path) \(request.query ?? "-")")
    }

    @Test("a GET is answered with status, length, Connection: close and the handler's body")
    func answersAGet() async throws {
        let response = try await Self.serving(handler: Self.echo) { port in
            await Self.exchange(port: port, "GET /metrics?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        }
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.contains("\r\nContent-Length: 17\r\n"))
        #expect(response.contains("\r\nConnection: close\r\n"))
        #expect(response.hasSuffix("\r\n\r\nGET /metrics x=1\n"))
    }

    @Test("a request head arriving byte by byte, with bare LF line ends, is still one request")
    func headByteByByte() async throws {
        let head = Array("GET /healthz HTTP/1.0\nUser-Agent: probe\n\n".utf8)
        let response = try await Self.serving(handler: Self.echo) { port in
            await Self.exchange(port: port, head.map { [$0] }, pause: .milliseconds(2))
        }
        #expect(response.hasSuffix("\r\n\r\nGET /healthz -\n"))
    }

    @Test("HEAD gets the GET's fields, Content-Length included, without the body")
    func headHasNoBody() async throws {
        let response = try await Self.serving(handler: Self.echo) { port in
            await Self.exchange(port: port, "HEAD /metrics HTTP/1.1\r\n\r\n")
        }
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.contains("Content-Length: 16\r\n"))
        #expect(response.hasSuffix("\r\n\r\n"))
    }

    @Test(
        "a malformed request line is 400 and never reaches the handler",
        arguments: [
            "GARBAGE\r\n\r\n", "GET /metrics\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n", "GET / HTTP/2.0\r\n\r\n",
        ]
    )
    func malformedIsRefused(head: String) async throws {
        let reached = CallCounter()
        let response = try await Self.serving(handler: { request in
            reached.increment()
            return await Self.echo(request)
        }) { port in
            await Self.exchange(port: port, head)
        }
        #expect(response.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(reached.value == 0)
    }

    @Test("a head over the limit is 431, whether it arrives at once or in pieces")
    func oversizeHead() async throws {
        let big = "GET /metrics HTTP/1.1\r\nX-Filler: " + String(repeating: "a", count: 3000) + "\r\n\r\n"
        let limits = OperatorHTTPServer.Limits(maxHeadBytes: 1024)
        let (atOnce, endless) = try await Self.serving(limits: limits, handler: Self.echo) { port in
            let atOnce = await Self.exchange(port: port, big)
            // No end of head at all: the server must not buffer without bound.
            let endless = await Self.exchange(
                port: port,
                (0..<8).map { _ in Array(("X-A: " + String(repeating: "b", count: 500) + "\r\n").utf8) }
            )
            return (atOnce, endless)
        }
        #expect(atOnce.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        #expect(endless.hasPrefix("HTTP/1.1 431 "))
    }

    @Test("a client that never finishes its head gets 408 at the head timeout, and others are served meanwhile")
    func slowClientTimesOut() async throws {
        // 1 s: the request served meanwhile must fit in the timeout even on a loaded machine (at
        // 300 ms its handler missed it once, under a parallel build, and got 503).
        let limits = OperatorHTTPServer.Limits(headTimeout: .seconds(1))
        let (slow, meanwhile) = try await Self.serving(limits: limits, handler: Self.echo) { port in
            async let slow = Self.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: x\r\n")
            let meanwhile = await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\n\r\n")
            return (await slow, meanwhile)
        }
        #expect(slow.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(meanwhile.hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test("a handler that does not answer within the request timeout: the client gets 503, not a hang")
    func stuckHandlerIs503() async throws {
        let (release, releaseSink) = AsyncStream.makeStream(of: Void.self)
        let limits = OperatorHTTPServer.Limits(requestTimeout: .milliseconds(300))
        let response = try await Self.serving(
            limits: limits,
            handler: { request in
                for await _ in release {}
                return await Self.echo(request)
            }
        ) { port in
            let response = await Self.exchange(port: port, "GET /metrics HTTP/1.1\r\n\r\n")
            releaseSink.finish()
            return response
        }
        #expect(response.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
    }

    @Test("more clients than the connection limit: every one is answered, the rest waiting in the backlog")
    func connectionLimit() async throws {
        let limits = OperatorHTTPServer.Limits(maxConnections: 2)
        let responses = try await Self.serving(limits: limits, handler: Self.echo) { port in
            await withTaskGroup(of: String.self) { group in
                for index in 0..<24 {
                    group.addTask { await Self.exchange(port: port, "GET /n/\(index) HTTP/1.1\r\n\r\n") }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(responses.count == 24)
        #expect(responses.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK\r\n") })
        #expect(Set(responses.map { $0.split(separator: "\n").last ?? "" }).count == 24)
    }

    @Test("run() ends when cancelled, and the port no longer accepts connections")
    func stopsAndCloses() async throws {
        let port = try await Self.serving(handler: Self.echo) { port in port }
        let after = await Self.exchange(port: port, "GET / HTTP/1.1\r\n\r\n")
        #expect(after == "connect failed: errno \(ECONNREFUSED)")
    }

    @Test("a port in use: run() throws, naming the address and what to do")
    func addressInUse() async throws {
        try await Self.serving(handler: Self.echo) { port in
            let second = OperatorHTTPServer(listen: .init(host: "127.0.0.1", port: port), handler: Self.echo)
            do {
                try await second.run()
                Issue.record("a second server listened on the same port")
            } catch let error as OperatorHTTPServerError {
                #expect(
                    error
                        == .cannotListen(
                            .init(host: "127.0.0.1", port: port),
                            errno: EADDRINUSE,
                            reason: String(cString: strerror(EADDRINUSE))
                        )
                )
                #expect(error.description.contains("127.0.0.1:\(port)"))
                #expect(error.description.contains("choose another one"))
            }
        }
    }

    @Test("/metrics and /healthz: Prometheus text, the health report, 503 when the store is down, 404 and 405")
    func metricsRoutes() async throws {
        let storeDown = CallCounter()
        let metrics = DaemonMetrics(registry: PrometheusCollectorRegistry())
        let health: @Sendable () async -> HealthReport = {
            HealthReport(
                storeError: storeDown.value > 0 ? "disk full" : nil,
                modems: ["ready": 3],
                uptimeSeconds: 1
            )
        }
        let (scrape, healthy, down, missing, post) = try await Self.serving({ onListening in
            MetricsServer.makeService(
                listen: .init(host: "127.0.0.1", port: 0),
                health: health,
                metrics: metrics,
                logger: .init(label: "test"),
                onServerRunning: onListening
            )
        }) { port in
            let scrape = await Self.exchange(port: port, "GET /metrics HTTP/1.1\r\n\r\n")
            let healthy = await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\n\r\n")
            storeDown.increment()
            let down = await Self.exchange(port: port, "GET /healthz HTTP/1.1\r\n\r\n")
            let missing = await Self.exchange(port: port, "GET /favicon.ico HTTP/1.1\r\n\r\n")
            let post = await Self.exchange(port: port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            return (scrape, healthy, down, missing, post)
        }
        #expect(scrape.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"))
        #expect(scrape.contains("\nnbgw_store_up 1"))
        #expect(scrape.contains("\nprocess_resident_memory_bytes "))
        #expect(healthy.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(healthy.contains("Cache-Control: no-store\r\n"))
        #expect(healthy.hasSuffix("\"status\":\"ok\",\"store\":\"ok\",\"uptimeSeconds\":1}\n"))
        #expect(down.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(down.contains("\"storeError\":\"disk full\""))
        #expect(missing.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(post.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(post.contains("Allow: GET, HEAD\r\n"))
    }
}

/// A thread-safe count, for handlers that record being called.
final class CallCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
