import CloudServer
import Foundation
import Hummingbird
import Logging
import NBGWCore
import ServiceLifecycle

/// One `nbgw-cloud serve` process: the API listener, the optional metrics listener, the
/// connection pool and the hourly purge, as services of one group that stops on SIGTERM.
public struct FleetNode: Sendable {
    public var host: String
    public var port: Int
    public var metricsHost: String?
    public var metricsPort: Int
    public var settings: CloudServerSettings
    /// Requests a second per tenant on this node (0: no limit) and the burst.
    public var tenantRate: Double
    public var tenantBurst: Int

    public init(
        host: String = "127.0.0.1",
        port: Int = 8443,
        metricsHost: String? = nil,
        metricsPort: Int = 9464,
        settings: CloudServerSettings = CloudServerSettings(),
        tenantRate: Double = 200,
        tenantBurst: Int = 400
    ) {
        self.host = host
        self.port = port
        self.metricsHost = metricsHost
        self.metricsPort = metricsPort
        self.settings = settings
        self.tenantRate = tenantRate
        self.tenantBurst = tenantBurst
    }

    /// Serves until SIGTERM or SIGINT; refuses to start on a schema it does not know.
    public func run(
        store: FleetStore,
        logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let purge = FleetPurgeService(store: store, logger: logger)
        let responder = FleetResponder(
            settings: settings,
            store: store,
            limiter: FleetRateLimiter(rate: tenantRate, burst: tenantBurst),
            logger: logger
        )
        let (host, port) = (self.host, self.port)
        let api = Application(
            responder: responder,
            server: .http1(configuration: .init(idleTimeout: .seconds(30))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "nbgw-cloud"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                logger.notice("nbgw-cloud listening", metadata: ["host": "\(host)", "port": "\(bound)"])
                await onListening(bound)
            },
            logger: logger
        )
        var services: [any Service] = [purge, api]
        if let metricsHost {
            services.append(
                Application(
                    responder: FleetMetricsResponder(store: store),
                    configuration: ApplicationConfiguration(
                        address: .hostname(metricsHost, port: metricsPort),
                        serverName: "nbgw-cloud-metrics"
                    ),
                    logger: logger
                )
            )
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        // The pool runs for the whole life of the node and stops after the listeners have
        // drained; the schema is checked before any listener opens.
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { await store.run() }
            defer { tasks.cancelAll() }
            try await store.checkSchema()
            try await group.run()
        }
    }
}

/// Deletes expired idempotency records and tokens every hour.
struct FleetPurgeService: Service {
    let store: FleetStore
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let removed = try await store.purge(now: SystemWallClock().millis)
                if removed > 0 { logger.info("purged expired rows", metadata: ["rows": "\(removed)"]) }
            } catch {
                logger.warning("purge failed; retried in an hour", metadata: ["error": "\(FleetDatabase.describe(error))"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}
