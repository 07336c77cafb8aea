import ServiceLifecycle

/// A small HTTP/1.1 server (RFC 9112) for the daemon's operator endpoints (`/metrics`,
/// `/healthz`): one request per connection, answered by `handler`, then closed. Enough for
/// Prometheus scrapes, `curl` and load-balancer health checks; the ingest API, which needs
/// keep-alive, TLS and bodies, is Hummingbird's.
///
/// Limits, each answered rather than left hanging: ``Limits/maxConnections`` open at once (more
/// wait in the listen backlog), a request head of ``Limits/maxHeadBytes`` (431 beyond), and
/// ``Limits/headTimeout`` for the head to arrive (408), ``Limits/requestTimeout`` for the handler to
/// answer (503) and the response to be read (dropped). A malformed request line is 400.
///
/// A ServiceLifecycle `Service`: `run()` binds (throwing ``OperatorHTTPServerError`` when it
/// cannot), reports the bound address through `onListening`, serves until graceful shutdown or
/// cancellation, then closes the listener and every connection before it returns.
public final class OperatorHTTPServer: Service, Sendable {
    public struct Limits: Sendable {
        public var maxConnections: Int
        public var maxHeadBytes: Int
        /// How long a connection may take to send its whole request head. Why 3 s: a scrape or a
        /// health check sends it in one packet at once; a client trickling bytes holds one of
        /// ``maxConnections`` for no longer than this.
        public var headTimeout: Duration
        /// How long the handler may take, and the client to read the answer, after the head.
        public var requestTimeout: Duration

        public init(
            maxConnections: Int = 64,
            maxHeadBytes: Int = 8192,
            headTimeout: Duration = .seconds(3),
            requestTimeout: Duration = .seconds(10)
        ) {
            self.maxConnections = maxConnections
            self.maxHeadBytes = maxHeadBytes
            self.headTimeout = headTimeout
            self.requestTimeout = requestTimeout
        }
    }

    private let listen: ListenAddress
    private let limits: Limits
    private let handler: @Sendable (OperatorHTTPRequest) async -> OperatorHTTPResponse
    private let onListening: @Sendable (ListenAddress) async -> Void

    /// - Parameters:
    ///   - listen: where to listen (port 0: the kernel picks one, reported to `onListening`).
    ///   - handler: answers every well-formed request, whatever its method and path.
    ///   - onListening: called once the socket listens, with the bound address.
    public init(
        listen: ListenAddress,
        limits: Limits = Limits(),
        handler: @escaping @Sendable (OperatorHTTPRequest) async -> OperatorHTTPResponse,
        onListening: @escaping @Sendable (ListenAddress) async -> Void = { _ in }
    ) {
        self.listen = listen
        self.limits = limits
        self.handler = handler
        self.onListening = onListening
    }

    public func run() async throws {
        let (fd, bound) = try OperatorHTTPListener.open(listen)
        let loop = try OperatorHTTPLoop(listenFD: fd, limits: limits)
        loop.start()
        let handler = self.handler
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await onListening(bound)
                // Ends when the loop stops, or at once when this task is cancelled; handlers
                // still running are awaited (their answers are dropped once the loop stopped).
                await withDiscardingTaskGroup { group in
                    for await accepted in loop.requests {
                        group.addTask {
                            loop.respond(to: accepted.id, with: await handler(accepted.request))
                        }
                    }
                }
                await loop.stopAndWait()
            } onGracefulShutdown: {
                loop.stop()
            }
        } onCancel: {
            loop.stop()
        }
    }
}
