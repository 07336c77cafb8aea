import CloudServer
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NBGWCore
import ServerSupport
import ServiceLifecycle
import UnixSignals

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
    /// The certificate and key to serve HTTPS with, reloaded on SIGHUP; nil: plain HTTP (on
    /// loopback behind a TLS-terminating load balancer).
    public var tls: TLSIdentityReloader?
    /// Connections the API listener holds at once; past it, it stops accepting until one closes
    /// (clients wait in the kernel's backlog). Why 512 by default: behind a load balancer a node
    /// sees the balancer's pooled connections (haproxy's `maxconn` per server in docs/fleet.md is
    /// 256); direct gateways hold one each; 512 descriptors stay far under the default 1024
    /// soft limit with the database pool's beside them.
    public var maxConnections: Int = 512
    /// A connection with no request for this long is closed (slow or vanished clients).
    public var idleTimeout: Duration = .seconds(30)

    public init(
        host: String = "127.0.0.1",
        port: Int = 8443,
        metricsHost: String? = nil,
        metricsPort: Int = 9464,
        settings: CloudServerSettings = CloudServerSettings(),
        tenantRate: Double = 200,
        tenantBurst: Int = 400,
        tls: TLSIdentityReloader? = nil
    ) {
        self.host = host
        self.port = port
        self.metricsHost = metricsHost
        self.metricsPort = metricsPort
        self.settings = settings
        self.tenantRate = tenantRate
        self.tenantBurst = tenantBurst
        self.tls = tls
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
        let http1 = HTTP1Channel.Configuration(idleTimeout: .init(idleTimeout))
        let api = Application(
            responder: responder,
            server: try tls.map { try .tls(.http1(configuration: http1), tlsConfiguration: $0.serverConfiguration) }
                ?? .http1(configuration: http1),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port),
                serverName: "nbgw-cloud",
                availableConnectionsDelegate: ListenerConnectionBudget(
                    limit: maxConnections,
                    count: store.counters.connections
                )
            ),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                logger.notice("nbgw-cloud listening", metadata: ["host": "\(host)", "port": "\(bound)"])
                await onListening(bound)
            },
            logger: logger
        )
        var services: [any Service] = [purge, api]
        if let tls { services.append(FleetTLSReloadService(reloader: tls, logger: logger)) }
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

/// Reloads the node's certificate and key on SIGHUP (a renewed certificate, `systemctl reload`);
/// a pair that cannot be used is logged and the old one kept.
struct FleetTLSReloadService: Service {
    let reloader: TLSIdentityReloader
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        try await cancelWhenGracefulShutdown {
            for await _ in hangups {
                do {
                    let identity = try reloader.reload()
                    logger.notice(
                        "TLS certificate reloaded",
                        metadata: [
                            "tls.certificate": "\(identity.certificatePath)",
                            "tls.notValidAfter": "\(identity.notValidAfter.formatted(.iso8601))",
                        ]
                    )
                } catch {
                    logger.error("TLS reload refused; still serving the previous certificate: \(error)")
                }
            }
        }
    }
}
