import Cloud
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import ServerSupport
import Provisioning
import Registry

/// The QR ingest HTTP service (issue 7): scanners, phones and back-office tools submit scanned QR
/// codes; the gateway parses and binds them with exactly the CLI's rules.
///
/// The application it builds is a ServiceLifecycle `Service`: `nbgwd` adds it to its service
/// group; `nbgw ingest serve` runs it alone with `runService()`.
public enum IngestService {
    /// One documented route: method and OpenAPI path (docs/ingest-api.yaml lists exactly these).
    public struct Route: Hashable, Sendable, CustomStringConvertible {
        public var method: String
        public var path: String

        public init(method: String, path: String) {
            self.method = method
            self.path = path
        }

        public var description: String { "\(method) \(path)" }
    }

    /// Every route the service answers, in the OpenAPI path syntax.
    public static let routes: [Route] = [
        Route(method: "POST", path: "/v1/qr/parse"),
        Route(method: "POST", path: "/v1/bindings"),
        Route(method: "GET", path: "/v1/bindings"),
        Route(method: "DELETE", path: "/v1/bindings/{deviceId}"),
        Route(method: "POST", path: "/v1/homes/{home}/pairing-tokens"),
        Route(method: "GET", path: "/v1/pairing-tokens/{token}"),
        Route(method: "GET", path: "/v1/devices/{deviceId}"),
        Route(method: "GET", path: "/v1/modems"),
        Route(method: "POST", path: "/v1/noop"),
    ]

    /// What a key of scope `bind` may call: a scanner's or a station's whole job, and nothing that
    /// reads what others bound or undoes it.
    public static let bindScopeRoutes: Set<Route> = [
        Route(method: "POST", path: "/v1/qr/parse"),
        Route(method: "POST", path: "/v1/bindings"),
        Route(method: "GET", path: "/v1/pairing-tokens/{token}"),
        Route(method: "POST", path: "/v1/noop"),
    ]

    /// The routes split into path segments once; a parameter (`{deviceId}`) is an empty segment,
    /// which matches any non-empty one (404/405 checks on every request).
    static let routeTemplates: [(route: Route, method: String, segments: [Substring])] = routes.map { route in
        let segments = route.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return (route, route.method, segments.map { $0.hasPrefix("{") ? "" : $0 })
    }

    /// Builds the application: routes, authentication, rate limit and error bodies; HTTPS when
    /// ``IngestConfiguration/tls`` is set (TLS 1.2 or newer), else plain HTTP.
    ///
    /// - Parameters:
    ///   - onServerRunning: called with the bound host and port once the server listens (port 0
    ///     in the configuration picks a free one).
    /// - Throws: when the TLS server cannot be set up. ``IngestTLS/load(certificate:key:)`` has
    ///   already checked the certificate and key, so in practice it does not throw.
    public static func buildApplication(
        configuration: IngestConfiguration,
        registry: Registry,
        cloud: any CloudService,
        logger: Logger,
        onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) throws -> some ApplicationProtocol {
        try buildApplication(
            configuration: configuration,
            responder: buildResponder(configuration: configuration, registry: registry, cloud: cloud, logger: logger),
            logger: logger,
            onServerRunning: onServerRunning
        )
    }

    /// Builds the application around another responder that answers the ingest API's routes and
    /// more (the web console, which sends `/v1/…` to ``buildResponder(configuration:registry:cloud:logger:)``).
    /// Listening, TLS and logging as ``buildApplication(configuration:registry:cloud:logger:onServerRunning:)``.
    public static func buildApplication<Responder: HTTPResponder>(
        configuration: IngestConfiguration,
        responder: Responder,
        logger: Logger,
        onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) throws -> some ApplicationProtocol where Responder.Context == IngestRequestContext {
        var metadata: Logger.Metadata = ["host": "\(configuration.host)", "scheme": "\(configuration.scheme)"]
        if let tls = configuration.tls {
            // The paths and the expiry only: the key itself is never logged.
            metadata["tls.certificate"] = "\(tls.certificatePath)"
            metadata["tls.key"] = "\(tls.keyPath)"
            metadata["tls.notValidAfter"] = "\(tls.notValidAfter.formatted(.iso8601))"
        }
        let listening = metadata
        let limits = configuration.connectionLimits
        let table =
            configuration.connectionTable
            ?? ListenerConnectionTable(
                limitPerClient: limits.maxConnectionsPerClient,
                evictAbove: limits.evictIdleAbove,
                exempt: configuration.trustedProxies
            )
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [IngestConnectionGuard(limits: limits, table: table, logger: logger)],
            idleTimeout: .init(limits.idleTimeout)
        )
        return Application(
            responder: responder,
            server: try configuration.tls.map {
                try .tls(.http1(configuration: http1), tlsConfiguration: $0.serverConfiguration)
            }
                ?? .http1(configuration: http1),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: configuration.serverName,
                backlog: limits.backlog,
                // Past it, the listener stops accepting until a connection closes: waiting clients sit
                // in the kernel's backlog and hold none of the daemon's descriptors.
                availableConnectionsDelegate: ListenerConnectionBudget(
                    limit: limits.maxConnections,
                    count: configuration.connectionCount
                )
            ),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                var metadata = listening
                metadata["port"] = "\(port)"
                metadata["maxConnections"] = "\(limits.maxConnections)"
                metadata["maxConnectionsPerClient"] = "\(limits.maxConnectionsPerClient)"
                logger.notice("ingest API listening", metadata: metadata)
                await onServerRunning(configuration.host, port)
            },
            logger: logger
        )
    }

    /// The responder alone (routes behind authentication, rate limit and error mapping).
    ///
    /// With ``IngestConfiguration/walCheckpointInterval`` set, it switches `registry` to background
    /// WAL checkpoints (for the registry's lifetime), so no request pays for a checkpoint's fsync.
    public static func buildResponder(
        configuration: IngestConfiguration,
        registry: Registry,
        cloud: any CloudService,
        logger: Logger
    ) -> IngestResponder<RouterResponder<IngestRequestContext>> {
        if let interval = configuration.walCheckpointInterval {
            do {
                try registry.checkpointInBackground(every: interval)
            } catch {
                // Not fatal: the registry keeps checkpointing inside commits, only slower.
                logger.warning(
                    "could not start background WAL checkpoints; commits keep checkpointing",
                    metadata: ["store": "\(registry.path)", "error": "\(error)"]
                )
            }
        }
        let handlers = IngestHandlers(
            registry: registry,
            cloud: cloud,
            service: BindingService(
                cloud: cloud,
                registry: registry,
                cloudWait: configuration.cloudWait,
                logger: logger
            ),
            configuration: configuration,
            logger: logger
        )
        let router = Router(context: IngestRequestContext.self)
        router.post("/v1/qr/parse") { try await handlers.parse($0, $1) }
        router.post("/v1/bindings") { try await handlers.bind($0, $1) }
        router.get("/v1/bindings") { try await handlers.listBindings($0, $1) }
        router.delete("/v1/bindings/{deviceId}") { try await handlers.unbind($0, $1) }
        router.post("/v1/homes/{home}/pairing-tokens") { try await handlers.createToken($0, $1) }
        router.get("/v1/pairing-tokens/{token}") { try await handlers.pairingResult($0, $1) }
        router.get("/v1/devices/{deviceId}") { try await handlers.device($0, $1) }
        router.get("/v1/modems") { try await handlers.modems($0, $1) }
        router.post("/v1/noop") { try await handlers.noop($0, $1) }
        return IngestResponder(
            inner: router.buildResponder(),
            registry: registry,
            rateLimiter: configuration.rateLimit.map {
                TokenBucketRateLimiter(
                    requestsPerSecond: $0.requestsPerSecond,
                    burst: $0.burst,
                    now: configuration.rateLimitClock
                )
            },
            usage: APIKeyUsage(),
            trustedProxies: configuration.trustedProxies,
            logger: logger
        )
    }
}
