import Daemon
import Foundation
import Synchronization
import TestClocks
import Testing

/// The notifier service against a real datagram socket, with time moved by a manual clock.
@Suite("the systemd notifier service")
struct SystemdNotifierServiceTests {
    /// How long a notification may take to arrive. It arrives in milliseconds; the bound is for a
    /// loaded CI machine, where the service's task once got no thread for over 5 s.
    static let patience: Duration = .seconds(60)

    /// The status line the service asks for, changed by the test.
    final class StatusLine: Sendable {
        private let value = Mutex("no modems yet")
        var text: String {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }

    @Test("READY once every service runs, WATCHDOG each half period, STATUS on change, STOPPING at the end")
    func lifecycle() async throws {
        let listener = try DatagramListener(path: SystemdNotifierTests.temporarySocketPath())
        let notifier = SystemdNotifier(socketPath: listener.socketPath, watchdogInterval: .seconds(5))
        let readiness = DaemonReadiness(expecting: ["gateway", "metrics"])
        let status = StatusLine()
        let clock = ManualClock()
        let service = SystemdNotifierService(
            notifier: notifier,
            readiness: readiness,
            status: { status.text },
            statusInterval: .seconds(10),
            clock: clock
        )
        let running = Task { try await service.run() }

        await readiness.markReady("gateway", detail: "4 static ports, udev off")
        #expect(await readiness.waitingFor == ["metrics"])
        #expect(listener.messages.isEmpty, "READY=1 before every service runs")
        await readiness.markReady("metrics", detail: "metrics on http://127.0.0.1:9464/metrics")
        let ready = try await listener.waitFor(timeout: Self.patience) { $0.hasPrefix("READY=1") }
        #expect(
            ready
                == "READY=1\nSTATUS=ready: 4 static ports, udev off; metrics on http://127.0.0.1:9464/metrics; "
                + "no modems yet"
        )

        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        _ = try await listener.waitFor(timeout: Self.patience) { $0 == "WATCHDOG=1" }
        status.text = "4 modems: 4 ready"
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        _ = try await listener.waitFor(timeout: Self.patience) { $0 == "STATUS=4 modems: 4 ready" }
        await clock.waitForSleepers(1)
        // Unchanged status: the next period sends nothing but the watchdog.
        clock.advance(by: .seconds(10))
        await clock.waitForSleepers(1)
        #expect(
            listener.messages.dropFirst()
                == ["WATCHDOG=1", "WATCHDOG=1", "STATUS=4 modems: 4 ready", "WATCHDOG=1", "WATCHDOG=1"]
        )

        running.cancel()
        try await running.value
        let stopping = try await listener.waitFor(timeout: Self.patience) { $0.hasPrefix("STOPPING=1") }
        #expect(stopping == "STOPPING=1\nSTATUS=stopping: graceful shutdown")
        #expect(listener.messages.last == stopping)
    }

    @Test("without a watchdog only status changes are sent; a stop before ready sends STOPPING alone")
    func stopBeforeReady() async throws {
        let listener = try DatagramListener(path: SystemdNotifierTests.temporarySocketPath())
        let readiness = DaemonReadiness(expecting: ["gateway"])
        let service = SystemdNotifierService(
            notifier: SystemdNotifier(socketPath: listener.socketPath),
            readiness: readiness,
            status: { "no modems yet" },
            clock: ManualClock()
        )
        let running = Task { try await service.run() }
        running.cancel()
        try await running.value
        _ = try await listener.waitFor(timeout: Self.patience) { $0.hasPrefix("STOPPING=1") }
        #expect(listener.messages == ["STOPPING=1\nSTATUS=stopping: graceful shutdown"])
        #expect(await readiness.isReady == false)
    }

    @Test("readiness: waiters resume when the last component reports, or with false when cancelled")
    func readiness() async throws {
        let readiness = DaemonReadiness(expecting: ["gateway", "ingest"])
        let waiter = Task { await readiness.waitUntilReady() }
        await readiness.markReady("ingest", detail: "ingest on http://127.0.0.1:8080")
        await readiness.markReady("unknown", detail: "ignored")
        await readiness.markReady("gateway", detail: "0 static ports, udev on")
        #expect(await waiter.value)
        #expect(await readiness.summary == "ingest on http://127.0.0.1:8080; 0 static ports, udev on")

        let never = DaemonReadiness(expecting: ["gateway"])
        let cancelled = Task { await never.waitUntilReady() }
        cancelled.cancel()
        #expect(await cancelled.value == false)
    }
}
