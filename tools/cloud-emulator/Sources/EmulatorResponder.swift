import CloudServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NBGWCore
import TuyaCloud

/// Answers nbgw's cloud profile (`docs/cloud-api.yaml`) through the shared route handlers
/// (``CloudServer/CloudServerHandler``, the same as `nbgw-cloud`'s) on the emulator's SQLite
/// store, with the planned faults injected around them.
public struct EmulatorResponder: HTTPResponder {
    public typealias Context = EmulatorRequestContext

    let configuration: EmulatorConfiguration
    let store: EmulatorStore
    let faults: FaultInjector
    let handler: CloudServerHandler
    /// The admin calls' nonces (they are signed like token calls, nonce required).
    let adminReplays: ReplayCache
    let logger: Logger

    init(configuration: EmulatorConfiguration, store: EmulatorStore, faults: FaultInjector, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.faults = faults
        self.handler = CloudServerHandler(settings: configuration.settings, store: store)
        self.adminReplays = ReplayCache(windowMillis: configuration.allowedClockSkew.cloudMillis)
        self.logger = logger
    }

    typealias Outcome = CloudServerHandler.Outcome

    public func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: CloudServerHandler.maximumBodyBytes)
        let parsed = CloudServerRequest(request, body: Array(buffer.readableBytesView))
        if parsed.path.hasPrefix("/admin/") {
            return admin(parsed)
        }
        let plan = faults.current
        if plan.latencyMs > 0 {
            try? await Task.sleep(for: .milliseconds(plan.latencyMs))
        }
        let now = configuration.wallClock.millis + plan.clockSkewMs
        let route = CloudServerHandler.route(parsed)
        if faults.take(.dropConnection) {
            log(parsed, route: route, status: 0, code: nil, fault: "drop_connections", now: now)
            context.closeConnection()
            return Response(status: .ok)
        }
        if faults.take(.serverError) {
            let failure = CloudServerFailure(TuyaErrorCode.systemError, "injected: service unavailable", httpStatus: 503)
            log(parsed, route: route, status: 503, code: failure.code, fault: "server_errors", now: now)
            var outcome = Outcome(route: route)
            outcome.status = 503
            outcome.failure = failure
            return CloudServerHandler.response(outcome, t: now)
        }
        if faults.take(.rateLimit) {
            let failure = CloudServerFailure(
                TuyaErrorCode.requestsTooFrequent,
                "injected: too many requests",
                httpStatus: 429
            )
            log(parsed, route: route, status: 429, code: failure.code, fault: "rate_limits", now: now)
            var outcome = Outcome(route: route)
            outcome.status = 429
            outcome.failure = failure
            outcome.headers = [("Retry-After", String(max(0, plan.retryAfterSeconds)))]
            return CloudServerHandler.response(outcome, t: now)
        }
        let faults = self.faults
        let outcome = await handler.handle(parsed, now: now) { _, businessCall, outcome in
            if businessCall, faults.take(.expiredToken) {
                outcome.fault = "expired_tokens"
                return CloudServerFailure(TuyaErrorCode.tokenExpired, "token is expired")
            }
            if faults.take(.busy) {
                let code = faults.current.busyCode
                outcome.fault = "busy_responses"
                return CloudServerFailure(code, "injected: \(TuyaErrorCode.name(code) ?? "busy")")
            }
            return nil
        }
        if let cause = outcome.failure?.cause {
            logger.error("store failed", metadata: ["route": "\(route)", "error": "\(cause)"])
        }
        var fault = outcome.fault
        if outcome.changesState, outcome.failure == nil, faults.take(.dropAfterProcessing) {
            fault = "drop_after_processing"
        }
        log(
            parsed,
            route: route,
            status: outcome.status,
            code: outcome.failure?.code,
            key: outcome.key,
            replayed: outcome.replayed,
            fault: fault,
            now: now
        )
        if fault == "drop_after_processing" {
            // The effect is committed; only the answer is lost, as when a gateway dies mid-reply.
            context.closeConnection()
            return Response(status: .ok)
        }
        return CloudServerHandler.answer(outcome, to: parsed, t: now)
    }

    func log(
        _ request: CloudServerRequest,
        route: String,
        status: Int,
        code: Int?,
        key: String? = nil,
        replayed: Bool = false,
        fault: String?,
        now: Int64
    ) {
        store.logRequest(
            at: now,
            method: request.method,
            route: route,
            status: status,
            code: code,
            key: key,
            replayed: replayed,
            fault: fault
        )
        logger.info(
            "request",
            metadata: [
                "method": "\(request.method)", "route": "\(route)", "status": "\(status)",
                "code": "\(code.map(String.init) ?? "-")", "replayed": "\(replayed)", "fault": "\(fault ?? "-")",
            ]
        )
    }
}
