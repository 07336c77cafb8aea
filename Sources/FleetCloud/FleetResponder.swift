import CloudServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NBGWCore
import TuyaCloud

/// A node's HTTP answers: the signed cloud API through the shared route handlers on the fleet's
/// PostgreSQL store, a per-tenant rate limit and `/healthz`. Metrics have a listener of their own
/// (``FleetMetricsResponder``), on loopback by default: a load balancer forwards every path of
/// the API's listener to anyone.
public struct FleetResponder: HTTPResponder {
    public typealias Context = BasicRequestContext

    let handler: CloudServerHandler
    let store: FleetStore
    let limiter: FleetRateLimiter
    let wallClock: any WallClock
    let logger: Logger

    public init(
        settings: CloudServerSettings,
        store: FleetStore,
        limiter: FleetRateLimiter,
        wallClock: any WallClock = SystemWallClock(),
        logger: Logger
    ) {
        self.handler = CloudServerHandler(settings: settings, store: store)
        self.store = store
        self.limiter = limiter
        self.wallClock = wallClock
        self.logger = logger
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        switch (request.method, request.uri.path) {
        case (.get, "/healthz"):
            // The database answers, or this node is taken out of the load balancer's rotation.
            let up = await store.ping()
            return Response(
                status: up ? .ok : .serviceUnavailable,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: up ? "ok\n" : "database unreachable\n"))
            )
        default:
            break
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: CloudServerHandler.maximumBodyBytes)
        } catch {
            var outcome = CloudServerHandler.Outcome(route: "\(request.method.rawValue) \(request.uri.path)")
            outcome.failure = .invalid("the body is over \(CloudServerHandler.maximumBodyBytes) bytes")
            outcome.failure?.httpStatus = 413
            return CloudServerHandler.response(outcome, t: wallClock.millis)
        }
        let parsed = CloudServerRequest(request, body: Array(buffer.readableBytesView))
        let now = wallClock.millis
        let limiter = self.limiter
        let counters = store.counters
        let outcome = await handler.handle(parsed, now: now) { principal, _, outcome in
            guard let wait = limiter.acquire(principal.tenant) else { return nil }
            counters.rateLimit()
            let seconds = max(1, Int(wait.components.seconds) + (wait.components.attoseconds > 0 ? 1 : 0))
            outcome.headers.append(("Retry-After", String(seconds)))
            return CloudServerFailure(
                TuyaErrorCode.requestsTooFrequent,
                "requests too frequent: tenant \(principal.tenant) is over its rate on this node; retry after \(seconds) s",
                httpStatus: 429
            )
        }
        if let cause = outcome.failure?.cause {
            logger.error("store failed", metadata: ["route": "\(outcome.route)", "error": "\(cause)"])
        }
        // A rate limit is the node's own answer, not the API's: a real 429 whatever the client prefers.
        let response =
            outcome.failure?.code == TuyaErrorCode.requestsTooFrequent
            ? CloudServerHandler.response(outcome, t: now)
            : CloudServerHandler.answer(outcome, to: parsed, t: now)
        // The status sent (200 for a refusal in Tuya's envelope), and the API's own beside it in the log.
        let status = Int(response.status.code)
        counters.request(route: outcome.route, status: status)
        logger.info(
            "request",
            metadata: [
                "route": "\(outcome.route)", "status": "\(status)",
                "code": "\(outcome.failure.map { String($0.code) } ?? "-")",
                "tenant": "\(outcome.principal?.tenant ?? "-")", "gateway": "\(outcome.principal?.gateway ?? "-")",
                "replayed": "\(outcome.replayed)",
            ]
        )
        return response
    }
}
