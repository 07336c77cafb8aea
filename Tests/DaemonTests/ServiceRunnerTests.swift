import ServiceLifecycle
import Synchronization
import TestClocks
import Testing

@testable import Daemon

/// The bound on graceful shutdown, with the grace period on a manual clock: services that stop
/// when asked end the run cleanly; one that ignores shutdown and cancellation is named, and the
/// run ends anyway.
@Suite("graceful shutdown within the grace period")
struct ServiceRunnerTests {
    /// Counts how often a service's body ran to its end.
    final class Finished: Sendable {
        private let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test("services that stop when asked: the run ends .stopped, in reverse order, before the grace period")
    func cleanStop() async throws {
        let clock = ManualClock()
        let finished = Finished()
        let runner = ServiceRunner(gracePeriod: .seconds(10), handlesSignals: false, clock: clock)
        let (trigger, pull) = AsyncStream.makeStream(of: Void.self)
        func service(_ name: String) -> ClosureService {
            ClosureService {
                try await cancelWhenGracefulShutdown {
                    defer { finished.add(name) }
                    try await Task.sleep(for: .seconds(3600))
                }
            }
        }
        let gateway = service("gateway")
        let metrics = service("metrics")
        let run = Task { await runner.run([("gateway", gateway), ("metrics", metrics)], trigger: trigger) }
        pull.yield()
        let outcome = await run.value
        #expect(outcome == .stopped)
        #expect(outcome.exitCode == 0)
        #expect(finished.all == ["metrics", "gateway"])
    }

    @Test("a service that ignores shutdown: cancelled at the grace period, named, the run ends with 75")
    func overrun() async throws {
        let clock = ManualClock()
        let finished = Finished()
        let runner = ServiceRunner(gracePeriod: .seconds(10), handlesSignals: false, clock: clock)
        let (trigger, pull) = AsyncStream.makeStream(of: Void.self)
        let stuck = ClosureService {
            // Neither graceful shutdown nor cancellation ends it (a read blocked in the kernel). A
            // continuation nobody resumes: suspended for good, without the busy loop a cancelled
            // `try? Task.sleep` makes (every throw there costs Swift Testing a backtrace; it kept a
            // core busy for the rest of the test run).
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
        let steady = ClosureService {
            try await cancelWhenGracefulShutdown {
                defer { finished.add("steady") }
                try await Task.sleep(for: .seconds(3600))
            }
        }
        let run = Task { await runner.run([("stuck", stuck), ("steady", steady)], trigger: trigger) }
        pull.yield()
        // The grace period starts (a sleeper on the clock); the well-behaved service stops in it.
        await clock.waitForSleepers(1)
        while finished.all.isEmpty { await Task.yield() }
        clock.advance(by: .seconds(10))
        // The cancellation allowance.
        await clock.waitForSleepers(1)
        clock.advance(by: ServiceRunner<ManualClock>.cancellationAllowance)
        let outcome = await run.value
        #expect(outcome == .shutdownTimedOut(pending: ["stuck"]))
        #expect(outcome.exitCode == 75)
        #expect(outcome.message?.contains("still running: stuck") == true)
        #expect(finished.all == ["steady"], "the well-behaved service did not stop when asked")
    }

    @Test("a service that fails: the run ends with 69 naming it")
    func failure() async throws {
        struct Broken: Error, CustomStringConvertible {
            var description: String { "cannot bind 127.0.0.1:9464: address in use" }
        }
        let runner = ServiceRunner(gracePeriod: .seconds(10), handlesSignals: false, clock: ManualClock())
        let steady = ClosureService {
            try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
        }
        let broken = ClosureService { throw Broken() }
        let outcome = await runner.run([("gateway", steady), ("metrics", broken)])
        #expect(outcome == .serviceFailed(service: "metrics", message: "cannot bind 127.0.0.1:9464: address in use"))
        #expect(outcome.exitCode == 69)
    }

    /// The group's own bound (`maximumGracefulShutdownDuration`) does the cancelling: the runner's
    /// watch sits on a manual clock that never moves here, so only the library can end this run.
    /// Without the bound set the run never ends: tried, the test hung until `timeout 200` killed the run.
    @Test(
        "a service that ignores shutdown but not cancellation: the group cancels it at the grace period, named",
        .timeLimit(.minutes(1))
    )
    func groupCancelsAtTheGracePeriod() async throws {
        let runner = ServiceRunner(gracePeriod: .milliseconds(200), handlesSignals: false, clock: ManualClock())
        let (trigger, pull) = AsyncStream.makeStream(of: Void.self)
        let lingering = ClosureService {
            // Ignores graceful shutdown; a cancelled sleep throws.
            try await Task.sleep(for: .seconds(3600))
        }
        let run = Task { await runner.run([("lingering", lingering)], trigger: trigger) }
        pull.yield()
        let outcome = await run.value
        #expect(outcome == .shutdownTimedOut(pending: ["lingering"]))
        #expect(outcome.exitCode == 75)
    }
}
