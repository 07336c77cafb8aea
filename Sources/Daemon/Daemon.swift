import Cloud
import CloudCatalogue
import Console
import Control
import Discovery
import Foundation
import Gateway
import Ingest
import Logging
import NBGWCore
import PosixSupport
import Prometheus
import Provisioning
import Registry
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// `nbgwd`: the gateway's services in one ServiceLifecycle `ServiceGroup`.
///
/// At start it opens the store, marks the modem rows a previous run left behind as absent, and
/// starts, in this order (graceful shutdown runs in reverse):
///
/// 1. `gateway`: discovery (static `[[ports]]`, then udev) feeding one supervisor per port;
///    `hooks` (``HookService``, when `[hooks] directory` is set) runs after it on its state changes;
/// 2. `metrics`: `/metrics` and `/healthz` on their own loopback port;
/// 3. `ingest`: the QR ingest API and the web console, when `[ingest] enabled`, then
///    `console-batches` (``ConsoleBatchService``): the console's CSV batches, swept, and stopped at a
///    chunk boundary before anything else stops;
/// 4. `cloud-outbox`: the outbox drainer, with a cloud that syncs (every one but the embedded);
/// 5. `control`: the control socket (`[control]`), operators' commands on one modem;
/// 6. `reload`: SIGHUP (`systemctl reload nbgwd`) re-reads the config's SIM PINs;
/// 7. `systemd-notify`: `READY=1` once all of the above run, watchdog, `STOPPING=1`;
/// 8. `shutdown-watch` (``ServiceRunner``): starts the grace period when SIGTERM/SIGINT arrives.
///
/// ```swift
/// let daemon = Daemon(configuration: configuration, environment: environment, logger: logger)
/// let outcome = await daemon.run()      // returns after SIGTERM/SIGINT, or on a failure
/// exit(outcome.exitCode)
/// ```
public struct Daemon: Sendable {
    public let configuration: DaemonConfiguration
    let environment: [String: String]
    let logger: Logger
    let metricsRegistry: PrometheusCollectorRegistry
    /// The config file the configuration came from (re-read on SIGHUP), and the flags over it.
    let configurationFile: String?
    let overrides: DaemonOverrides
    /// Every tty discovery has seen and what it decided (`nbgw discovery list`; the control socket
    /// serves ``DiscoveryLedger/entries()``).
    public let discoveryLedger = DiscoveryLedger()

    /// How often the outbox is drained. Why 30 s: a bind made while the cloud was
    /// unreachable reaches it within half a minute of its return; each idle drain is one SQLite read.
    static let outboxInterval: Duration = .seconds(30)

    /// - Parameters:
    ///   - configuration: the effective configuration (``DaemonConfiguration/load(explicitPath:defaultPath:environment:overrides:)``).
    ///   - environment: the process environment (cloud credentials, `NOTIFY_SOCKET`, `WATCHDOG_USEC`).
    ///   - metricsRegistry: the registry `/metrics` renders (`nbgwd` makes it and bootstraps
    ///     swift-metrics with a factory over it).
    public init(
        configuration: DaemonConfiguration,
        environment: [String: String],
        logger: Logger,
        metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        configurationFile: String? = nil,
        overrides: DaemonOverrides = DaemonOverrides()
    ) {
        self.configuration = configuration
        self.environment = environment
        self.logger = logger
        self.metricsRegistry = metricsRegistry
        self.configurationFile = configurationFile
        self.overrides = overrides
    }

    /// The soft descriptor limit the daemon raises itself to (within the hard limit): the unit's
    /// `LimitNOFILE=`. Why 4,096: 128 modules take about 3 descriptors each, the store a few, the
    /// listeners at most 512 + 64 + 68; four thousand leaves the reserve large.
    static let descriptorTarget = 4096

    /// Runs until SIGTERM/SIGINT (or a failure) and says how it ended.
    public func run() async -> DaemonOutcome {
        let started = ContinuousClock.now
        let path = configuration.store.path ?? RegistryLocation.resolve(explicit: nil, environment: environment)
        logger.notice(
            "nbgwd starting",
            metadata: [
                "store.path": "\(path)", "cloud.mode": "\(configuration.cloud.mode)",
                "discovery.udev": "\(configuration.discovery.udev)", "ports": "\(configuration.ports.count)",
                "discovery.generic_bridges": "\(configuration.discovery.genericBridges.rawValue)",
            ]
        )
        // The TLS files first: a wrong certificate or key stops the start before anything is opened.
        var ingest = configuration.ingest.ingestConfiguration
        ingest.cloudWait = configuration.cloud.syncWait
        // Half the descriptors at most for the listener's clients; the rest is the daemon's reserve
        // (store, serial ports, udev, control socket, metrics, systemd's socket), whatever arrives.
        let descriptors = Posix.raiseDescriptorLimit(toAtMost: Self.descriptorTarget)
        ingest.connectionLimits = ingest.connectionLimits.capped(toDescriptorLimit: descriptors.soft)
        if configuration.ingest.enabled, ingest.connectionLimits.maxConnections < configuration.ingest.maxConnections {
            logger.warning(
                "ingest max_connections lowered to half the descriptor limit",
                metadata: [
                    "configured": "\(configuration.ingest.maxConnections)",
                    "effective": "\(ingest.connectionLimits.maxConnections)", "RLIMIT_NOFILE": "\(descriptors.soft)",
                    "fix": "raise LimitNOFILE= (the unit sets 4096)",
                ]
            )
        }
        if configuration.ingest.enabled {
            do {
                ingest.tls = try configuration.ingest.loadTLS()
            } catch {
                let problem = DaemonConfigurationError(file: nil, key: error.configurationKey, error.message)
                return .startFailed(message: problem.description, exitCode: DaemonConfigurationError.exitCode)
            }
        }
        let group: gid_t?
        switch Self.operatorsGroup(configuration.store.group) {
        case .success(let gid):
            group = gid
            if gid == nil {
                logger.warning(
                    "no group \(DaemonConfiguration.Store.defaultGroup): the store and the control socket are the daemon's user's alone; create the group (systemd-sysusers) to let operators in"
                )
            }
        case .failure(let problem):
            return .startFailed(message: problem.description, exitCode: DaemonConfigurationError.exitCode)
        }
        if let group {
            for problem in Registry.shareFiles(path: path, group: group) {
                logger.warning("store file not shared with the operators' group: \(problem)")
            }
        }
        let simPINs: SIMPINBook
        do {
            simPINs = try configuration.simPINBook()
        } catch {
            return .startFailed(message: error.description, exitCode: DaemonConfigurationError.exitCode)
        }
        let secretsKey: SecretsKeyAccess
        do {
            secretsKey = try SecretsKeySource.resolve(
                explicit: configuration.store.secretsKey,
                environment: environment
            )
        } catch {
            let problem = DaemonConfigurationError(file: configurationFile, key: "store.secrets_key", error.message)
            return .startFailed(message: problem.description, exitCode: DaemonConfigurationError.exitCode)
        }
        let registry: Registry
        do {
            registry = try Registry(
                path: path,
                access: group.map { .shared(group: $0) } ?? .ownerOnly,
                secretsKey: secretsKey
            )
            let stale = try registry.modems.markAllAbsent()
            if stale > 0 {
                logger.info("marked modem rows of the previous run absent", metadata: ["rows": "\(stale)"])
            }
        } catch {
            return .startFailed(message: error.description, exitCode: error.code.exitCode)
        }

        let cloud: any CloudService
        do {
            cloud = try CloudCatalogue.make(configuration.cloud.selection, environment: environment, logger: logger)
        } catch {
            return .startFailed(message: error.description, exitCode: DaemonConfigurationError.exitCode)
        }
        if let failure = sealCredentials(registry, cloud: cloud) {
            await cloud.shutdown()
            return failure
        }

        var discovery: UdevDiscovery?
        if configuration.discovery.udev {
            do {
                discovery = try UdevDiscovery(logger: logger)
            } catch {
                await cloud.shutdown()
                return .startFailed(
                    message: "udev discovery is unavailable (\(error)): run nbgwd where /sys and udev are "
                        + "available, or set [discovery] udev = false and list the ports under [[ports]]",
                    exitCode: DaemonOutcome.serviceUnavailableExitCode
                )
            }
        }

        var gatewayConfiguration = configuration.modem.gatewayConfiguration
        gatewayConfiguration.simPINs = simPINs
        let gateway = Gateway(
            configuration: gatewayConfiguration,
            registry: registry,
            cloud: cloud,
            logger: logger,
            clock: ContinuousClock()
        )
        let outcome = await runServices(
            gateway: gateway,
            ingest: ingest,
            registry: registry,
            storePath: path,
            group: group,
            cloud: cloud,
            discovery: discovery,
            started: started
        )
        switch outcome {
        case .stopped:
            await cloud.shutdown()
            logger.notice("nbgwd stopped")
        case .shutdownTimedOut:
            // Something is stuck: close nothing more, the process exits next.
            logger.error("nbgwd stopped: \(outcome.message ?? "")")
        default:
            await cloud.shutdown()
            logger.error("nbgwd stopped: \(outcome.message ?? "")")
        }
        return outcome
    }

    private func runServices(
        gateway: Gateway,
        ingest: IngestConfiguration,
        registry: Registry,
        storePath: String,
        group: gid_t?,
        cloud: any CloudService,
        discovery: UdevDiscovery?,
        started: ContinuousClock.Instant
    ) async -> DaemonOutcome {
        var expected: Set<String> = ["gateway"]
        let controlSocket = controlSocketPath()
        if controlSocket != nil { expected.insert("control") }
        if configuration.metrics.enabled { expected.insert("metrics") }
        if configuration.ingest.enabled { expected.insert("ingest") }
        let readiness = DaemonReadiness(expecting: expected)
        let health = Self.healthCheck(
            gateway: gateway,
            registry: registry,
            countsOutbox: cloud.syncsBindings,
            started: started
        )

        var services: [(name: String, service: any Service)] = []
        services.append(
            (
                "gateway",
                GatewayService(
                    gateway: gateway,
                    staticPorts: configuration.ports.map(PortEventMapper.modemPort),
                    discovery: discovery,
                    mapper: PortEventMapper(
                        policy: configuration.discovery.candidatePolicy,
                        staticPorts: configuration.ports.map(\.path)
                    ),
                    ledger: discoveryLedger,
                    readiness: readiness,
                    logger: logger
                )
            )
        )
        if let directory = configuration.hooks.directory {
            // Subscribed now, before the gateway runs: the hooks see its first changes too.
            let hooks = HookService(
                directory: directory,
                timeout: configuration.hooks.timeout,
                changes: gateway.stateChanges(),
                registry: registry,
                metricsRegistry: metricsRegistry,
                logger: logger
            )
            services.append(("hooks", hooks))
        }
        if configuration.labels.directory != nil {
            // Subscribed now, before the gateway runs: the first registrations get labels too.
            services.append(
                (
                    "labels",
                    LabelWriterService(
                        settings: configuration.labels,
                        changes: gateway.stateChanges(),
                        registry: registry,
                        cloud: cloud,
                        logger: logger
                    )
                )
            )
        }
        if configuration.metrics.enabled {
            if configuration.metrics.isExposed {
                // Accepted only with [metrics] allow_remote = true (the configuration refuses it
                // otherwise); said at every start, since nothing else would.
                let exposure =
                    "metrics and health listen on \(configuration.metrics.listen), an address other hosts reach: "
                    + "/metrics and /healthz serve every module's IMEI, port, model, firmware and last error "
                    + "without authentication ([metrics] allow_remote = true)"
                logger.warning("\(exposure)")
            }
            let metrics = DaemonMetrics(registry: metricsRegistry)
            metrics.recordStart(epochSeconds: Date().timeIntervalSince1970)
            services.append(
                (
                    "metrics",
                    MetricsServer.makeService(
                        listen: configuration.metrics.listen,
                        health: health,
                        metrics: metrics,
                        logger: logger
                    ) { address in
                        await readiness.markReady("metrics", detail: "metrics on http://\(address)/metrics")
                    }
                )
            )
        }
        if configuration.ingest.enabled {
            let application: any Service
            var console = ConsoleService.configuration(
                ingest: ingest,
                controlSocket: controlSocket,
                storePath: registry.path
            )
            configuration.console.apply(to: &console)
            // The console draws labels at the size and resolution the daemon's label files have.
            console.labelStyle = configuration.labels.style
            let consoleParts = ConsoleService.parts(
                configuration: console,
                registry: registry,
                cloud: cloud,
                cloudWait: ingest.cloudWait,
                logger: logger
            )
            do {
                // The API and the web console on one listener (docs/console.md).
                application = try ConsoleService.buildApplication(
                    ingest: ingest,
                    parts: consoleParts,
                    registry: registry,
                    cloud: cloud,
                    logger: logger
                ) { host, port in
                    let address = ListenAddress(host: host, port: port)
                    await readiness.markReady("ingest", detail: "ingest on \(ingest.scheme)://\(address)")
                }
            } catch {
                return .startFailed(
                    message: "the ingest API's TLS server cannot be set up: \(error)",
                    exitCode: DaemonOutcome.serviceUnavailableExitCode
                )
            }
            services.append(("ingest", application))
            // After the listener, so stopped before it and before the gateway (graceful shutdown runs
            // in reverse): a running batch stops at a chunk boundary first, and its chunk writes never
            // hold up the gateway's last ones (docs/console.md, "Batches").
            services.append(
                ("console-batches", ConsoleBatchService(batches: consoleParts.batches, clock: ContinuousClock()))
            )
        }
        if cloud.syncsBindings {
            let drainer = OutboxDrainer(registry: registry, cloud: cloud, logger: logger)
            services.append(
                (
                    "cloud-outbox",
                    ClosureService {
                        try await cancelWhenGracefulShutdown { await drainer.run(every: Self.outboxInterval) }
                    }
                )
            )
        }
        if let socket = controlSocket {
            do {
                services.append(
                    (
                        "control",
                        ControlServer(
                            socketPath: socket,
                            group: group,
                            storePath: storePath,
                            gateway: gateway,
                            registry: registry,
                            logger: logger,
                            discovery: { [discoveryLedger] in discoveryLedger.entries() }
                        ) { path in
                            await readiness.markReady("control", detail: "control on \(path)")
                        }
                    )
                )
            }
        }
        services.append(
            (
                "reload",
                ReloadService(
                    configurationFile: configurationFile,
                    environment: environment,
                    overrides: overrides,
                    current: configuration,
                    gateway: gateway,
                    logger: logger
                )
            )
        )
        if let notifier = SystemdNotifier(environment: environment) {
            services.append(
                (
                    "systemd-notify",
                    SystemdNotifierService(
                        notifier: notifier,
                        readiness: readiness,
                        status: { Self.statusLine(await health()) },
                        clock: ContinuousClock(),
                        logger: logger
                    )
                )
            )
        }
        let readyLogger = logger
        let readyTask = Task {
            guard await readiness.waitUntilReady() else { return }
            let summary = await readiness.summary
            readyLogger.notice("nbgwd ready: \(summary)")
        }
        let runner = ServiceRunner(
            gracePeriod: configuration.shutdown.gracePeriod,
            handlesSignals: true,
            clock: ContinuousClock(),
            logger: logger
        )
        let outcome = await runner.run(services)
        readyTask.cancel()
        return outcome
    }

    /// The modules' credentials at start (docs/operations.md, "Module credentials"): with the
    /// secrets key, those an older nbgw wrote in clear are sealed now and those sealed under
    /// another key are named in the log; without it, a cloud that needs them (Kii) stops the start
    /// (no module could be registered or bound), and any other only says what is left in clear.
    func sealCredentials(_ registry: Registry, cloud: any CloudService) -> DaemonOutcome? {
        guard registry.secretsKey.key != nil else {
            if cloud.wantsModuleSecret {
                let problem = DaemonConfigurationError(
                    file: configurationFile,
                    key: "store.secrets_key",
                    "cloud mode \(configuration.cloud.mode) keeps each module's password and token sealed under the "
                        + "store's secrets key, and nbgwd has none (\(registry.secretsKey)): run it from the packaged "
                        + "unit (LoadCredential=\(SecretsKeySource.credentialName):\(SecretsKeySource.packagedPath)), "
                        + "or set [store] secrets_key to a key file only nbgwd's user can read"
                )
                return .startFailed(message: problem.description, exitCode: DaemonConfigurationError.exitCode)
            }
            if let sealing = try? registry.directory.credentialSealing(), sealing.inClear > 0 {
                logger.warning(
                    "module credentials stored in clear: give nbgwd the secrets key to seal them (docs/operations.md)",
                    metadata: ["values": "\(sealing.inClear)", "secrets_key": "\(registry.secretsKey)"]
                )
            }
            return nil
        }
        // Its id only: which key this daemon holds, for comparing with a credential's.
        logger.info("module credentials sealed under \(registry.secretsKey)")
        do {
            let (sealed, after) = try registry.directory.sealCredentialsInClear()
            if sealed > 0 {
                logger.notice(
                    "sealed the module credentials an older nbgw stored in clear",
                    metadata: ["values": "\(sealed)", "secrets_key": "\(registry.secretsKey)"]
                )
            }
            for (imei, id) in after.underOtherKeys.sorted(by: { $0.key < $1.key }) {
                logger.error(
                    "module credential sealed under another secrets key: no cloud work for it until nbgwd has that key",
                    metadata: ["imei": "\(imei)", "sealed_under": "\(id)", "secrets_key": "\(registry.secretsKey)"]
                )
            }
        } catch {
            logger.error(
                "cannot seal the module credentials stored in clear: \(error.message)",
                metadata: ["code": "\(error.code.rawValue)"]
            )
        }
        return nil
    }

    /// Where the control socket listens, or nil when it is off (or its default directory does not
    /// exist: a daemon run by hand where the package's tmpfiles.d did not make it, said in the log).
    func controlSocketPath() -> String? {
        guard configuration.control.enabled else { return nil }
        let socket = configuration.control.socket ?? ControlProtocol.defaultSocketPath
        let directory = (socket as NSString).deletingLastPathComponent
        if configuration.control.socket == nil, !FileManager.default.fileExists(atPath: directory) {
            let message =
                "no control socket: \(directory) does not exist (the package's tmpfiles.d makes it); set "
                + "[control] socket (or --control PATH) to serve `nbgw at`, `nbgw modem reset` and `nbgw modems --watch`"
            logger.warning("\(message)")
            return nil
        }
        return socket
    }

    /// The operators' group: the configured name or number, else `nbgw` when such a group exists
    /// (nil otherwise: owner-only files). A configured group that does not exist is a config error.
    static func operatorsGroup(_ configured: String?) -> Result<gid_t?, DaemonConfigurationError> {
        let name = configured ?? DaemonConfiguration.Store.defaultGroup
        if let number = gid_t(name) { return .success(number) }
        if let entry = getgrnam(name) { return .success(entry.pointee.gr_gid) }
        guard configured == nil else {
            return .failure(
                DaemonConfigurationError(
                    file: nil,
                    key: "store.group",
                    "no group \(name) on this system: create it (`groupadd --system \(name)`, or install the "
                        + "sysusers file) or name another in [store] group"
                )
            )
        }
        return .success(nil)
    }

    /// The health report: the store's usability, the gateway's counts by state, and one read of
    /// the modem table (and, with an HTTP cloud, of the outbox) that `/healthz` and `/metrics` share.
    ///
    /// - Parameter writability: whether a bind could be written now; by default the store is asked
    ///   at most once a second (``StoreWritabilityProbe``).
    static func healthCheck(
        gateway: Gateway,
        registry: Registry,
        countsOutbox: Bool = false,
        started: ContinuousClock.Instant,
        writability: StoreWritabilityProbe? = nil
    ) -> @Sendable () async -> HealthReport {
        let writability = writability ?? StoreWritabilityProbe(registry: registry)
        return {
            let counts = gateway.snapshot()
            let uptime = started.duration(to: .now)
            var problem = storeProblem(registry, writability: writability)
            var records: [ModemRecord] = []
            var outboxPending = 0
            if problem == nil {
                do throws(NBGWError) {
                    records = try registry.modems.all()
                    if countsOutbox { outboxPending = try registry.outbox.pendingCount() }
                } catch {
                    problem = (HealthReport.StoreReason.unreadable, error.message)
                }
            }
            return HealthReport(
                storeError: problem?.message,
                storeReason: problem?.reason,
                modems: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }),
                uptimeSeconds: Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18,
                records: records,
                outboxPending: outboxPending
            )
        }
    }

    /// Why the store is unusable (`/healthz`'s `storeReason` and `storeError`), or nil: the file must
    /// still exist, a bind must be writable now (the write lock within 200 ms, a writable file, room
    /// on its filesystem: ``Registry/writability(wait:minimumFreeBytes:)``), and a read must succeed.
    static func storeProblem(
        _ registry: Registry,
        writability: StoreWritabilityProbe
    ) -> (reason: HealthReport.StoreReason, message: String)? {
        guard FileManager.default.fileExists(atPath: registry.path) else {
            return (.removed, "the store \(registry.path) was removed: restore it from a backup and restart nbgwd")
        }
        let probe = writability.current()
        if let message = probe.problem {
            return (HealthReport.StoreReason(probe.state), message)
        }
        do {
            _ = try registry.directory.devices(limit: 1)
            return nil
        } catch {
            return (.unreadable, error.message)
        }
    }

    /// "8 modems: 6 ready, 2 registering" for `systemctl status`.
    static func statusLine(_ report: HealthReport) -> String {
        let states = report.modems.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        let modems =
            report.modemsTotal == 0
            ? "no modems yet"
            : "\(report.modemsTotal) modem\(report.modemsTotal == 1 ? "" : "s"): " + states.joined(separator: ", ")
        return report.isHealthy ? modems : "store unavailable; \(modems)"
    }
}
