import Logging
import ServiceLifecycle

/// Tells systemd how the daemon is doing (`Type=notify`): `READY=1` once every service runs,
/// `WATCHDOG=1` every half `WATCHDOG_USEC`, a `STATUS=` line with the modem counts, and
/// `STOPPING=1` as soon as graceful shutdown begins.
///
/// Put it last in the service group: the group shuts services down in reverse order, so this one
/// hears of the shutdown first and systemd learns of it before any other service stops.
public struct SystemdNotifierService<C: Clock>: Service, CustomStringConvertible where C.Duration == Duration {
    public let notifier: SystemdNotifier
    let readiness: DaemonReadiness
    let status: @Sendable () async -> String
    let statusInterval: Duration
    let clock: C
    let logger: Logger

    /// - Parameters:
    ///   - status: the current status line (modem counts), asked every `statusInterval`.
    ///   - statusInterval: how often the status line is refreshed. Why 10 s by default: what
    ///     `systemctl status nbgwd` shows is then at most 10 s old, for one datagram per period.
    ///   - clock: times the watchdog and status periods (tests inject a manual clock).
    public init(
        notifier: SystemdNotifier,
        readiness: DaemonReadiness,
        status: @escaping @Sendable () async -> String,
        statusInterval: Duration = .seconds(10),
        clock: C,
        logger: Logger = Logger(label: "nbgwd.systemd", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.notifier = notifier
        self.readiness = readiness
        self.status = status
        self.statusInterval = statusInterval
        self.clock = clock
        self.logger = logger
    }

    public var description: String { "systemd-notify" }

    public func run() async throws {
        let ready = await cancelWhenGracefulShutdown { await readiness.waitUntilReady() }
        if ready {
            let line = "ready: \(await readiness.summary); \(await status())"
            send { try notifier.ready(status: line) }
            logger.debug("told systemd READY=1", metadata: ["systemd.status": "\(line)"])
            try? await cancelWhenGracefulShutdown { try await heartbeat(lastStatus: line) }
        }
        send { try notifier.stopping(status: "stopping: graceful shutdown") }
        logger.debug("told systemd STOPPING=1")
    }

    /// Watchdog pings and status refreshes until cancelled.
    func heartbeat(lastStatus: String) async throws {
        var lastStatus = lastStatus
        let start = clock.now
        var nextWatchdog = notifier.watchdogInterval.map { start.advanced(by: $0) }
        var nextStatus = start.advanced(by: statusInterval)
        while true {
            let wake = nextWatchdog.map { min($0, nextStatus) } ?? nextStatus
            try await clock.sleep(until: wake, tolerance: nil)
            let now = clock.now
            if let due = nextWatchdog, due <= now, let interval = notifier.watchdogInterval {
                send { try notifier.watchdog() }
                nextWatchdog = due.advanced(by: interval)
            }
            if nextStatus <= now {
                let line = await status()
                if line != lastStatus {
                    send { try notifier.status(line) }
                    lastStatus = line
                }
                nextStatus = nextStatus.advanced(by: statusInterval)
            }
        }
    }

    private func send(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            logger.warning("\(error)")
        }
    }
}
