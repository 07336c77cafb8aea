import ServiceLifecycle

/// A service made of a closure, for composing small jobs into the daemon's group (and for tests
/// of the shutdown bound, which need services that do and do not stop when asked).
struct TaskService: Service, CustomStringConvertible {
    let name: String
    /// Cancel `body` when graceful shutdown begins (else `body` must notice the shutdown itself).
    let stopsOnGracefulShutdown: Bool
    let body: @Sendable () async throws -> Void

    init(_ name: String, stopsOnGracefulShutdown: Bool = true, _ body: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.stopsOnGracefulShutdown = stopsOnGracefulShutdown
        self.body = body
    }

    func run() async throws {
        if stopsOnGracefulShutdown {
            do {
                try await cancelWhenGracefulShutdown(body)
            } catch is CancellationError where Task.isShuttingDownGracefully {
                // Cancelled because the daemon stops: a normal end.
            }
        } else {
            try await body()
        }
    }

    var description: String { name }
}
