import ATKit
import Cloud
import Logging
import Provisioning
import Registry

/// Supervises modem ports: one ``ModemSupervisor`` per port that discovery (or the config)
/// announces, each taking its module from probe to ready and keeping it there. States,
/// transitions, backoff and the modem table: `docs/gateway.md`.
///
/// ```swift
/// let gateway = Gateway(configuration: GatewayConfiguration(plan: plan), registry: registry,
///                       cloud: EmbeddedCloud(), logger: logger)
/// try registry.modems.markAllAbsent()          // at start: nothing is supervised yet
/// await gateway.run(events: discovery.events) // until the events end or the task is cancelled
/// ```
///
/// **Concurrency.** ``run(events:)`` owns a task group with one child per supervised port; a
/// port's ``PortEvent/vanished(path:)`` cancels exactly that child. Supervisors share nothing but
/// short locks and the store's writer queue, so a port that hangs (a module that never answers,
/// a read that blocks) never slows another.
///
/// **Time.** The injected clock times supervision: backoff, the registration deadline, signal
/// polling. AT I/O (the probe's wake and query timeouts, command timeouts, guard time) always runs
/// on real time, because it measures a real port.
///
/// **Metrics** (swift-metrics; the daemon bootstraps the backend first): `nbgw_modems{state}`,
/// `nbgw_registrations_total{result}`, `nbgw_at_commands_total`, `nbgw_at_errors_total`,
/// `nbgw_at_timeouts_total`; the same totals in ``counters()``.
public final class Gateway: Sendable {
    let context: SupervisorContext
    let directory: SupervisorDirectory
    let metrics: GatewayMetrics

    /// - Parameters:
    ///   - configuration: the bring-up plan, probe options, timeouts and backoff.
    ///   - registry: the store (modem table, and the device rows registrations write).
    ///   - cloud: where modules are registered, through ``DeviceRegistrar``.
    ///   - logger: every state change is logged with `port`, `imei`, `state` metadata.
    ///   - clock: times backoff, registration deadlines and polling (tests inject a manual clock).
    public init(
        configuration: GatewayConfiguration,
        registry: Registry,
        cloud: any CloudService,
        logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        let metrics = GatewayMetrics()
        let directory = SupervisorDirectory(metrics: metrics)
        self.metrics = metrics
        self.directory = directory
        self.context = SupervisorContext(
            configuration: configuration,
            registry: registry,
            registrar: DeviceRegistrar(cloud: cloud, registry: registry, logger: logger),
            logger: logger,
            clock: SupervisionClock(clock),
            metrics: metrics,
            directory: directory,
            simPINs: SIMPINStore(configuration.simPINs)
        )
    }

    /// A gateway that logs nothing (embedding, tests); see ``init(configuration:registry:cloud:logger:clock:)``.
    public convenience init(
        configuration: GatewayConfiguration,
        registry: Registry,
        cloud: any CloudService,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            configuration: configuration,
            registry: registry,
            cloud: cloud,
            logger: Logger(label: "nbgw.gateway", factory: { _ in SwiftLogNoOpLogHandler() }),
            clock: clock
        )
    }

    /// Supervises every port the events announce until the sequence ends AND all supervisors finished,
    /// or until the task is cancelled (then every supervisor closes its session and persists its last
    /// state within a bounded time; cancellation must not hang on a blocked read).
    ///
    /// A ready supervisor runs until its port vanishes, so with live modems this returns only on
    /// cancellation. An `appeared` for a port that already has a supervisor is ignored; a
    /// `vanished` for a port without one marks its row absent. Subscriptions to
    /// ``stateChanges()`` end when this returns.
    public func run<Events: AsyncSequence & Sendable>(events: Events) async where Events.Element == PortEvent {
        let logger = context.logger
        await withDiscardingTaskGroup { group in
            do {
                for try await event in events {
                    switch event {
                    case .appeared(let port):
                        guard let entry = directory.begin(port) else {
                            logger.debug("port already supervised", metadata: ["port": "\(port.path)"])
                            continue
                        }
                        if let sibling = directory.claimedSibling(of: port) {
                            entry.signal.stop(.secondary(atPort: sibling.port, imei: sibling.imei))
                        }
                        group.addTask { await self.supervise(entry) }
                    case .vanished(let path):
                        if directory.stop(path: path, reason: .vanished) { continue }
                        if directory.vanishedWithoutSupervisor(path: path) {
                            let registry = context.registry
                            group.addTask { _ = try? await registry.modems.markAbsent(port: path) }
                        }
                    }
                }
            } catch {
                logger.error("port events failed: \(error); supervising the ports already announced")
            }
        }
        directory.finishSubscriptions()
    }

    /// One port's child task: the supervisor, and a waiter that cancels it when the port is told
    /// to stop (vanished, or a sibling became the module's AT port).
    func supervise(_ entry: SupervisorDirectory.Entry) async {
        let supervisor = ModemSupervisor(entry: entry, context: context)
        let final = await withTaskGroup(of: ModemState?.self) { group in
            group.addTask { await supervisor.run() }
            group.addTask {
                await entry.signal.wait()
                return nil
            }
            var final: ModemState?
            while let result = await group.next() {
                if let result {
                    final = result
                    group.cancelAll()
                } else if !Task.isCancelled {
                    // The stop signal fired: cancel the supervisor and wait for its last word.
                    group.cancelAll()
                }
            }
            return final
        }
        directory.finish(path: entry.port.path, id: entry.id, final: final)
    }

    /// Live counts for /healthz and metrics: modems per state.
    public func snapshot() -> [ModemState: Int] {
        directory.snapshot()
    }

    /// Every known port's current state (running supervisors, and ports whose supervisor ended).
    public func states() -> [String: ModemState] {
        directory.states()
    }

    /// AT and registration totals since the gateway was created.
    public func counters() -> GatewayCounters {
        metrics.counters
    }

    /// Every state change from now on, in order per port (the newest 1024 are kept for a slow
    /// reader). Ends when ``run(events:)`` returns.
    public func stateChanges() -> AsyncStream<ModemStateChange> {
        directory.subscribe()
    }
}
