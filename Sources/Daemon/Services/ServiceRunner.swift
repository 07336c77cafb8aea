import Logging
import ServiceLifecycle

/// Runs the daemon's services in one `ServiceGroup` and bounds its graceful shutdown: once a
/// shutdown signal arrives (or ``run(_:trigger:)``'s trigger fires), the group has the grace
/// period to stop; services still running then are cancelled and, a moment later, the run ends
/// anyway with ``DaemonOutcome/shutdownTimedOut(pending:)`` naming them (the caller exits the
/// process, which ends whatever is stuck).
struct ServiceRunner<C: Clock>: Sendable where C.Duration == Duration {
    /// How long the graceful shutdown may take.
    let gracePeriod: Duration
    /// Whether SIGTERM and SIGINT start the graceful shutdown (`nbgwd`; tests use a trigger).
    let handlesSignals: Bool
    /// Times the grace period (tests inject a manual clock).
    let clock: C
    let logger: Logger

    /// How long cancellation may take once the grace period is over. Why 1 s: cancelled tasks
    /// that are not stuck return in milliseconds; one stuck in a system call never does.
    static var cancellationAllowance: Duration { .seconds(1) }

    init(
        gracePeriod: Duration,
        handlesSignals: Bool,
        clock: C,
        logger: Logger = Logger(label: "nbgwd", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.gracePeriod = gracePeriod
        self.handlesSignals = handlesSignals
        self.clock = clock
        self.logger = logger
    }

    /// Runs `services` in order (graceful shutdown runs in reverse) until they stop or fail.
    ///
    /// - Parameter trigger: starts the graceful shutdown when it yields (tests; `nbgwd` uses signals).
    func run(
        _ services: [(name: String, service: any Service)],
        trigger: AsyncStream<Void>? = nil
    ) async -> DaemonOutcome {
        let tracker = ServiceTracker()
        let (shutdownBegan, shutdownContinuation) = AsyncStream.makeStream(of: Void.self)
        let all = services + [("shutdown-watch", ShutdownWatchService { shutdownContinuation.yield() })]
        let configuration = ServiceGroupConfiguration(
            services: all.map { name, service in
                .init(service: TrackedService(name: name, service: service, tracker: tracker), serviceName: name)
            },
            gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [],
            cancellationSignals: [],
            logger: logger
        )
        let group = ServiceGroup(configuration: configuration)
        let triggerTask = trigger.map { trigger in
            Task {
                for await _ in trigger {
                    await group.triggerGracefulShutdown()
                    return
                }
            }
        }
        defer { triggerTask?.cancel() }

        let (outcomes, continuation) = AsyncStream.makeStream(of: DaemonOutcome.self)
        // Unstructured on purpose: a structured task group would wait for a stuck service forever.
        let groupTask = Task {
            do {
                try await group.run()
                continuation.yield(tracker.overrun.map { .shutdownTimedOut(pending: $0) } ?? .stopped)
            } catch {
                continuation.yield(tracker.overrun.map { .shutdownTimedOut(pending: $0) } ?? Self.outcome(of: error))
            }
        }
        let deadlineTask = Task {
            for await _ in shutdownBegan {
                logger.notice("graceful shutdown started", metadata: ["shutdown.grace_period": "\(gracePeriod)"])
                do { try await clock.sleep(for: gracePeriod) } catch { return }
                let pending = tracker.runningServices.filter { $0 != "shutdown-watch" && $0 != "systemd-notify" }
                guard !pending.isEmpty else { return }
                tracker.recordOverrun(pending)
                logger.error(
                    "graceful shutdown overran the grace period: cancelling",
                    metadata: ["services": "\(pending.joined(separator: ", "))"]
                )
                // Cancel what still runs (the group cancels every service), then give it a moment.
                groupTask.cancel()
                do { try await clock.sleep(for: Self.cancellationAllowance) } catch { return }
                continuation.yield(.shutdownTimedOut(pending: pending))
                return
            }
        }
        var outcome = DaemonOutcome.stopped
        for await first in outcomes {
            outcome = first
            break
        }
        deadlineTask.cancel()
        return outcome
    }

    /// The failed service's name and message from the group's error.
    static func outcome(of error: any Error) -> DaemonOutcome {
        if let failure = error as? TrackedServiceError {
            return .serviceFailed(service: failure.service, message: failure.message)
        }
        return .serviceFailed(service: "service group", message: "\(error)")
    }
}
