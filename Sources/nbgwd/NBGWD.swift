import ArgumentParser
import Daemon
import Foundation
import Logging
import Metrics
import NBGWCore
import Prometheus

#if canImport(CLinux)
import CLinux
#endif

/// `nbgwd`: the gateway daemon. Thin: it parses flags, loads the configuration, bootstraps
/// logging (journald's native protocol when stderr is journald's stream, else plain stderr) and
/// Prometheus metrics, then runs ``Daemon``.
/// Exit codes: docs/operations.md. The process starts in ``NBGWDEntry``.
struct NBGWD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgwd",
        abstract: "The nbgw gateway daemon: finds modems, brings them onto the network, registers them.",
        discussion: """
            Configuration: --config PATH, else \(DaemonConfiguration.defaultPath) when present, else the \
            built-in defaults; then the environment (NBGW_DB, NBGW_CLOUD_URL, NBGW_CLOUD_CLIENT_ID, \
            NBGW_CLOUD_SECRET and the other NBGW_CLOUD_* settings), then these flags. Stops gracefully on \
            SIGTERM or SIGINT. \
            Exit codes: 0 stopped, 64 usage, 69 a service could not run, 70 store unavailable, \
            71 store failed unexpectedly, 75 shutdown overran the grace period, 78 invalid configuration \
            (docs/operations.md).
            """,
        version: NBGWVersion.current
    )

    @Option(help: "The TOML config file (default: \(DaemonConfiguration.defaultPath) when present).")
    var config: String?

    @Flag(name: .customLong("check-config"), help: "Validate the configuration, print the effective one, exit.")
    var checkConfig = false

    @Option(help: "The SQLite store (default: $NBGW_DB, else [store] path, else ~/.local/state/nbgw/nbgw.sqlite).")
    var db: String?

    @Option(help: "The cloud: `local` (embedded) or an HTTP cloud's base URL (default: $NBGW_CLOUD_URL, else [cloud]).")
    var cloud: String?

    @Flag(inversion: .prefixedNo, help: "Find ports through libudev (default: [discovery] udev, else on).")
    var udev: Bool?

    @Option(
        name: .customLong("port"),
        help: ArgumentHelp("A static port to supervise, PATH or PATH:BAUD (repeatable).", valueName: "path[:baud]"),
        transform: NBGWD.staticPort
    )
    var ports: [DaemonConfiguration.StaticPort] = []

    @Option(
        name: .customLong("metrics-listen"),
        help: ArgumentHelp("Address of /metrics and /healthz (default 127.0.0.1:9464).", valueName: "host:port"),
        transform: NBGWD.address
    )
    var metricsListen: ListenAddress?

    @Flag(name: .customLong("no-metrics"), help: "Do not serve /metrics and /healthz.")
    var noMetrics = false

    @Flag(inversion: .prefixedNo, help: "Serve the QR ingest API (default: [ingest] enabled, else off).")
    var ingest: Bool?

    @Option(
        name: .customLong("ingest-listen"),
        help: ArgumentHelp("Address of the ingest API (default 127.0.0.1:8080).", valueName: "host:port"),
        transform: NBGWD.address
    )
    var ingestListen: ListenAddress?

    @Option(name: .customLong("grace-period"), help: "Seconds a graceful shutdown may take (default 10).")
    var gracePeriod: Double?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    @Option(help: "The control socket (default: [control] socket, else /run/nbgw/control.sock).")
    var control: String?

    func validate() throws {
        if let gracePeriod, !(0.1...300).contains(gracePeriod) {
            throw ValidationError("--grace-period must be between 0.1 and 300 seconds")
        }
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError(
                "unknown --log-level \(logLevel): use trace, debug, info, notice, warning, error or critical"
            )
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        Self.limitMallocArenas(environment: environment)
        let overrides = DaemonOverrides(
            storePath: db,
            cloud: cloud,
            udev: udev,
            ports: ports,
            metricsListen: metricsListen,
            metricsEnabled: noMetrics ? false : nil,
            ingestEnabled: ingest,
            ingestListen: ingestListen,
            gracePeriod: gracePeriod.map { .milliseconds(Int64(($0 * 1000).rounded())) },
            logLevel: logLevel.flatMap(Logger.Level.init(rawValue:)),
            controlSocket: control
        )
        let loaded: (configuration: DaemonConfiguration, sources: DaemonConfiguration.Sources)
        do {
            loaded = try DaemonConfiguration.load(explicitPath: config, environment: environment, overrides: overrides)
        } catch {
            Self.writeError("\(error)", environment: environment)
            throw ExitCode(DaemonConfigurationError.exitCode)
        }
        if checkConfig {
            FileHandle.standardOutput.write(Data(loaded.configuration.renderedTOML(sources: loaded.sources).utf8))
            return
        }

        let level = loaded.configuration.log.level
        // Under journald (stderr is its stream): records with their priority and metadata as journal
        // fields; elsewhere plain lines (docs/operations.md, "Logs").
        let journal = JournalSink.detect(environment: environment)
        LoggingSystem.bootstrap { label in
            if let journal {
                var handler = JournalLogHandler(label: label, sink: journal)
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // Metrics next to logging, before the daemon builds its gateway: swift-metrics ties each
        // handle to the backend that exists when the handle is made.
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(DocumentedMetricsFactory(registry: metrics))
        var logger = Logger(label: "nbgwd")
        logger.logLevel = level
        if let file = loaded.sources.file {
            logger.info("configuration loaded", metadata: ["config.file": "\(file)"])
        } else {
            logger.info("no config file: running on the built-in defaults")
        }

        let daemon = Daemon(
            configuration: loaded.configuration,
            environment: environment,
            logger: logger,
            metricsRegistry: metrics,
            configurationFile: loaded.sources.file,
            overrides: overrides
        )
        let outcome = await daemon.run()
        if let message = outcome.message {
            Self.writeError(message, environment: environment)
        }
        // exit(), not a thrown ExitCode: after an overrun shutdown, stuck tasks must not keep the
        // process alive.
        Foundation.exit(outcome.exitCode)
    }

    /// "nbgwd: MESSAGE" on stderr, with the error priority prefix (`<3>`, sd-daemon(3)) when stderr is
    /// journald's stream, so that `journalctl -p err` shows why the daemon did not start or stopped.
    static func writeError(_ message: String, environment: [String: String]) {
        let underJournal = environment["JOURNAL_STREAM"].map { JournalSink.isJournalStream($0, descriptor: 2) } ?? false
        let prefix = underJournal ? "<3>" : ""
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        let text = lines.enumerated().map { index, line in prefix + (index == 0 ? "nbgwd: " : "") + line }
        FileHandle.standardError.write(Data((text.joined(separator: "\n") + "\n").utf8))
    }

    /// One malloc arena for the whole process, unless `MALLOC_ARENA_MAX` says otherwise. Why: glibc
    /// gives threads that allocate concurrently arenas of their own (up to 8 per core), each keeping
    /// its own partly used pages; the daemon's few threads allocate little, and with 32 modules the
    /// extra arenas were about 0.35 MB of its resident memory (docs/operations.md, "Memory").
    static func limitMallocArenas(environment: [String: String]) {
        #if canImport(CLinux) && os(Linux)
        if environment["MALLOC_ARENA_MAX"] == nil {
            _ = mallopt(M_ARENA_MAX, 1)
        }
        #endif
    }
}
