import Logging
import ServiceLifecycle

/// Runs the daemon's services in one `ServiceGroup` whose own bound ends the graceful shutdown:
/// `maximumGracefulShutdownDuration` is the grace period; once a shutdown signal arrives (or
/// ``run(_:trigger:)``'s trigger fires) the services have that long to stop, then the group
/// cancels what still runs.
///
/// What swift-service-lifecycle 2.13 lacks, and so is kept here:
/// - **Names.** The group logs that it escalated, not which services did not stop. The
///   ``ServiceTracker`` knows which are inside `run()`; the run ends with
///   ``DaemonOutcome/shutdownTimedOut(pending:)`` naming them (exit status 75).
/// - **An end when cancellation does not end a service** (one blocked in a system call):
///   `ServiceGroup.run()` returns only once every service has, and the library's bound for that,
///   `maximumCancellationDuration`, is a `fatalError`: a crash with neither a name nor an exit
///   status of ours. So the group runs in an unstructured task, and ``cancellationAllowance``
///   after the grace period this run returns anyway (the caller exits the process, which ends
///   whatever is stuck).
/// - **That watch on an injected clock**, so tests move its time by hand (the library sleeps on
///   the continuous clock).
struct ServiceRunner<C: Clock>: Sendable where C.Duration == Duration {
    /// How long the graceful shutdown may take.
    let gracePeriod: Duration
    /// Whether SIGTERM and SIGINT start the graceful shutdown (`nbgwd`; tests use a trigger).
    let handlesSignals: Bool
    /// Times the watch that names what overran the grace period (tests inject a manual clock).
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
        var configuration = ServiceGroupConfiguration(
            services: all.map { name, service in
                .init(service: TrackedService(name: name, service: service, tracker: tracker), serviceName: name)
            },
            gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [],
            cancellationSignals: [],
            logger: logger
        )
        configuration.maximumGracefulShutdownDuration = gracePeriod
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
        Task {
            do {
                try await group.run()
                // Services the group had to cancel at the grace period overran it too.
                let cancelled = (tracker.cancelledWhileStopping ?? []).filter { !Self.isInternal($0) }
                let overrun = tracker.overrun ?? (cancelled.isEmpty ? nil : cancelled)
                continuation.yield(overrun.map { .shutdownTimedOut(pending: $0) } ?? .stopped)
            } catch {
                continuation.yield(tracker.overrun.map { .shutdownTimedOut(pending: $0) } ?? Self.outcome(of: error))
            }
        }
        let deadlineTask = Task {
            for await _ in shutdownBegan {
                logger.notice("graceful shutdown started", metadata: ["shutdown.grace_period": "\(gracePeriod)"])
                do { try await clock.sleep(for: gracePeriod) } catch { return }
                let pending = tracker.runningServices.filter { !Self.isInternal($0) }
                guard !pending.isEmpty else { return }
                tracker.recordOverrun(pending)
                logger.error(
                    "graceful shutdown overran the grace period: the service group cancels them",
                    metadata: ["services": "\(pending.joined(separator: ", "))"]
                )
                // The group cancels them at the same bound (maximumGracefulShutdownDuration); give
                // that a moment.
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

    /// The runner's own watch and the systemd notifier: never named as overrunning (they wait for
    /// the shutdown itself, or only report to systemd).
    static func isInternal(_ name: String) -> Bool {
        name == "shutdown-watch" || name == "systemd-notify"
    }

    /// The failed service's name and message from the group's error.
    static func outcome(of error: any Error) -> DaemonOutcome {
        if let failure = error as? TrackedServiceError {
            return .serviceFailed(service: failure.service, message: failure.message)
        }
        return .serviceFailed(service: "service group", message: "\(error)")
    }
}
