import Cloud
import Foundation
import Hummingbird
import Ingest
import Logging
import PosixSupport
import Provisioning
import Registry

/// The web console (issue 20, docs/console.md): pages for people beside the ingest API for
/// machines, on the same listener. `/v1/…` is the ingest API, unchanged; every other path is the
/// console, behind a session cookie.
public enum ConsoleService {
    /// Everything the console's pages need, built once per server.
    public struct Parts: Sendable {
        public let sessions: ConsoleSessions
        public let batches: ConsoleBatches
        let handlers: ConsoleHandlers
    }

    /// The console's parts for `registry` and `cloud`.
    public static func parts(
        configuration: ConsoleConfiguration,
        registry: Registry,
        cloud: any CloudService,
        cloudWait: Duration = BindingService.defaultCloudWait,
        sessions: ConsoleSessions? = nil,
        signIn: ConsoleSignIn? = nil,
        logger: Logger
    ) -> Parts {
        let sessions = sessions ?? ConsoleSessions(registry: registry, logger: logger)
        let batches = ConsoleBatches(configuration: configuration, registry: registry, cloud: cloud, logger: logger)
        let handlers = ConsoleHandlers(
            registry: registry,
            cloud: cloud,
            service: BindingService(cloud: cloud, registry: registry, cloudWait: cloudWait, logger: logger),
            sessions: sessions,
            signIn: signIn ?? ConsoleSignIn(registry: registry, logger: logger),
            templates: ConsoleTemplates(),
            configuration: configuration,
            batches: batches,
            // Why one thread and one waiting: zbar reads a 640-pixel frame in tens of milliseconds
            // and a phone sends one frame at a time every 400 ms; beyond that, frames are dropped
            // (429) rather than queued behind each other.
            frames: BoundedWorkQueue(name: "nbgwd-frames", threads: 1, capacity: 1, niceSteps: 5),
            // Why one thread and four waiting: a module's label takes milliseconds to draw, a sheet
            // of a day's modules about a second; a few operators at once wait their turn, more are
            // told to retry (429) instead of queueing work without bound.
            labelWork: BoundedWorkQueue(name: "nbgwd-labels", threads: 1, capacity: 4, niceSteps: 5),
            logger: logger
        )
        return Parts(sessions: sessions, batches: batches, handlers: handlers)
    }

    /// The console's router alone (its pages and scripts' endpoints).
    static func router(_ handlers: ConsoleHandlers) -> Router<IngestRequestContext> {
        let router = Router(context: IngestRequestContext.self)
        router.get("/") { try await handlers.home($0, $1) }
        router.get("/signin") { try await handlers.signInPage($0, $1) }
        router.post("/signin") { try await handlers.signInSubmit($0, $1) }
        router.post("/signout") { try await handlers.signOut($0, $1) }
        router.get("/static/{name}") { try await handlers.asset($0, $1) }
        // Browsers ask for it on their own (a PDF or a JSON answer opened in a tab, an old bookmark).
        router.get("/favicon.ico") { _, _ in try handlers.asset(named: "favicon.svg") }
        router.get("/modems") { try await handlers.modemsPage($0, $1) }
        router.get("/modems.json") { try await handlers.modemsJSON($0, $1) }
        router.get("/modems/{key}") { try await handlers.modemPage($0, $1) }
        router.post("/modems/{key}/action") { try await handlers.modemAction($0, $1) }
        router.get("/bind") { try await handlers.bindPage($0, $1) }
        router.post("/bind") { try await handlers.bindSubmit($0, $1) }
        router.post("/bind/frame") { try await handlers.bindFrame($0, $1) }
        router.get("/labels/{file}") { try await handlers.label($0, $1) }
        router.post("/labels/print") { try await handlers.printUnprintedLabels($0, $1) }
        router.get("/batch") { try await handlers.batchPage($0, $1) }
        router.post("/batch") { try await handlers.batchUpload($0, $1) }
        router.get("/batch/{job}") { try await handlers.batchProgress($0, $1) }
        router.get("/batch/{job}/report.csv") { try await handlers.batchReport($0, $1) }
        router.post("/batch/{job}/resume") { try await handlers.batchResume($0, $1) }
        router.get("/devices") { try await handlers.devicesPage($0, $1) }
        router.get("/bindings") { try await handlers.bindingsPage($0, $1) }
        router.get("/bindings/{deviceId}/unbind") { try await handlers.unbindConfirm($0, $1) }
        router.post("/bindings/{deviceId}/unbind") { try await handlers.unbindSubmit($0, $1) }
        router.get("/accounts") { try await handlers.accountsPage($0, $1) }
        router.get("/homes") { try await handlers.homesPage($0, $1) }
        router.get("/tokens") { try await handlers.tokensPage($0, $1) }
        router.post("/tokens") { try await handlers.createToken($0, $1) }
        router.get("/tokens/{token}") { try await handlers.tokenPage($0, $1) }
        return router
    }

    /// The responder for both: `/v1/…` to the ingest API, the rest to the console.
    public static func buildResponder(
        ingest configuration: IngestConfiguration,
        parts: Parts,
        registry: Registry,
        cloud: any CloudService,
        logger: Logger
    ) -> some HTTPResponder<IngestRequestContext> {
        ConsoleResponder(
            ingest: IngestService.buildResponder(
                configuration: configuration,
                registry: registry,
                cloud: cloud,
                logger: logger
            ),
            console: router(parts.handlers).buildResponder(),
            templates: parts.handlers.templates,
            secure: parts.handlers.configuration.secureCookies,
            trustedProxies: configuration.trustedProxies,
            logger: logger
        )
    }

    /// The ingest API and the console on one listener (nbgwd, `nbgw ingest serve`). Cookies are
    /// `Secure` (and `__Host-`) whenever the server speaks HTTPS or is reached through a TLS proxy
    /// (a non-loopback listener, or an `https` public origin).
    public static func buildApplication(
        ingest configuration: IngestConfiguration,
        controlSocket: String?,
        registry: Registry,
        cloud: any CloudService,
        logger: Logger,
        onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) throws -> some ApplicationProtocol {
        let parts = parts(
            configuration: Self.configuration(
                ingest: configuration,
                controlSocket: controlSocket,
                storePath: registry.path
            ),
            registry: registry,
            cloud: cloud,
            cloudWait: configuration.cloudWait,
            logger: logger
        )
        return try buildApplication(
            ingest: configuration,
            parts: parts,
            registry: registry,
            cloud: cloud,
            logger: logger,
            onServerRunning: onServerRunning
        )
    }
}
