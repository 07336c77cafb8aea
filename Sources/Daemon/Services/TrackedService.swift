import ServiceLifecycle

/// A service wrapped so a ``ServiceTracker`` knows while it runs, and so its failure names it.
struct TrackedService: Service, CustomStringConvertible {
    let name: String
    let service: any Service
    let tracker: ServiceTracker

    func run() async throws {
        tracker.started(name)
        defer {
            // The group cancels a service's task during graceful shutdown only when the grace
            // period is over (or another service failed, which the group reports itself).
            if Task.isCancelled && Task.isShuttingDownGracefully { tracker.cancelledWhileStopping(name) }
            tracker.finished(name)
        }
        do {
            try await service.run()
        } catch is CancellationError {
            // Cancelled because the daemon stops gracefully: a normal end, not a failure.
            if Task.isShuttingDownGracefully { return }
            throw CancellationError()
        } catch {
            throw TrackedServiceError(service: name, message: "\(error)")
        }
    }

    var description: String { name }
}
