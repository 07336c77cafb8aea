import ServiceLifecycle

/// Does nothing until graceful shutdown begins, then reports it (the daemon starts counting the
/// grace period). Last in the service group, so it hears of the shutdown before anything stops.
struct ShutdownWatchService: Service, CustomStringConvertible {
    let onShutdown: @Sendable () -> Void

    func run() async throws {
        do {
            try await gracefulShutdown()
            onShutdown()
        } catch {
            // Cancelled: the group is already ending.
        }
    }

    var description: String { "shutdown-watch" }
}
