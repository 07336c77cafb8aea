import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NBGWCore
import TuyaCloud

/// Answers nbgw's cloud profile (`docs/cloud-api.yaml`): injects the planned faults, checks the
/// signature, timestamp, nonce and access token exactly as a Tuya OpenAPI gateway would
/// (pairing-anchors §1.4–1.6), then routes to the store. State-changing calls with a signed
/// `Idempotency-Key` are answered once and replayed after.
public struct EmulatorResponder: HTTPResponder {
    public typealias Context = EmulatorRequestContext

    let configuration: EmulatorConfiguration
    let store: EmulatorStore
    let faults: FaultInjector
    let replays: ReplayCache
    let logger: Logger

    /// Request bodies over this size are refused; nbgw's bodies are well under 4 KiB.
    static let maximumBodyBytes = 64 * 1024

    init(configuration: EmulatorConfiguration, store: EmulatorStore, faults: FaultInjector, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.faults = faults
        self.replays = ReplayCache(windowMillis: configuration.allowedClockSkew.millis)
        self.logger = logger
    }

    /// What one handled request produced.
    struct Outcome {
        var status: Int = 200
        /// The raw JSON of `result`, or nil for a failure.
        var result: String?
        var failure: EmulatorFailure?
        var route: String
        var key: String?
        var replayed = false
        var changesState = false
        var headers: [(String, String)] = []
        /// The injected fault that shaped this answer, for the request log.
        var fault: String?
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: EmulatorResponder.maximumBodyBytes)
        let parsed = EmulatorRequest(request, body: Array(buffer.readableBytesView))
        if parsed.path.hasPrefix("/admin/") {
            return admin(parsed)
        }
        let plan = faults.current
        if plan.latencyMs > 0 {
            try? await Task.sleep(for: .milliseconds(plan.latencyMs))
        }
        let now = configuration.wallClock.millis + plan.clockSkewMs
        let route = EmulatorResponder.route(parsed)
        if faults.take(.dropConnection) {
            log(parsed, route: route, status: 0, code: nil, fault: "drop_connections", now: now)
            context.closeConnection()
            return Response(status: .ok)
        }
        if faults.take(.serverError) {
            let failure = EmulatorFailure(TuyaErrorCode.systemError, "injected: service unavailable", httpStatus: 503)
            log(parsed, route: route, status: 503, code: failure.code, fault: "server_errors", now: now)
            return response(Outcome(status: 503, failure: failure, route: route), t: now)
        }
        if faults.take(.rateLimit) {
            let failure = EmulatorFailure(
                TuyaErrorCode.requestsTooFrequent,
                "injected: too many requests",
                httpStatus: 429
            )
            log(parsed, route: route, status: 429, code: failure.code, fault: "rate_limits", now: now)
            var outcome = Outcome(status: 429, failure: failure, route: route)
            outcome.headers = [("Retry-After", String(max(0, plan.retryAfterSeconds)))]
            return response(outcome, t: now)
        }
        let outcome = handle(parsed, route: route, now: now)
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
        guard parsed.prefersHTTPStatuses else { return response(outcome, t: now, envelopeStatuses: true) }
        var answer = response(outcome, t: now)
        answer.headers[EmulatorResponder.preferenceApplied] = EmulatorRequest.httpStatusPreference
        return answer
    }

    /// Authenticates, applies the token and busy faults, then routes.
    func handle(_ request: EmulatorRequest, route: String, now: Int64) -> Outcome {
        var outcome = Outcome(route: route)
        let accessToken: String?
        switch authenticate(request, now: now) {
        case .failure(let failure):
            outcome.failure = failure
            return outcome
        case .success(let token):
            accessToken = token
        }
        if let failure = EmulatorResponder.routeFailure(request, outcome: &outcome) {
            outcome.failure = failure
            return outcome
        }
        if let accessToken {
            if faults.take(.expiredToken) {
                outcome.failure = EmulatorFailure(TuyaErrorCode.tokenExpired, "token is expired")
                outcome.fault = "expired_tokens"
                return outcome
            }
            do {
                if let failure = try store.read({ db in try EmulatorStore.checkAccessToken(db, accessToken, now: now) })
                {
                    outcome.failure = failure
                    return outcome
                }
            } catch {
                outcome.failure = EmulatorFailure(TuyaErrorCode.systemError, "system error: \(error)")
                return outcome
            }
        }
        if faults.take(.busy) {
            let code = faults.current.busyCode
            outcome.failure = EmulatorFailure(code, "injected: \(TuyaErrorCode.name(code) ?? "busy")")
            outcome.fault = "busy_responses"
            return outcome
        }
        return dispatch(request, outcome: outcome, now: now)
    }

    // MARK: Responses

    /// The answer to send. With `envelopeStatuses`, a refusal is HTTP 200 with its envelope, as
    /// Tuya's gateways answer and Tuya's SDKs expect (tuya-connector-python reads no body from any
    /// other status); without, it carries the HTTP status of its code (``EmulatorFailure/httpStatus``),
    /// for clients that send `Prefer: http-status`. Injected gateway faults (503, 429) keep their
    /// status either way: they stand for a gateway in trouble, not for an answer of the API.
    func response(_ outcome: Outcome, t: Int64, envelopeStatuses: Bool = false) -> Response {
        let json: String
        if let result = outcome.result {
            json = "{\"result\":\(result),\"success\":true,\"t\":\(t)}"
        } else {
            let failure = outcome.failure ?? EmulatorFailure(TuyaErrorCode.systemError, "system error")
            let envelope = TuyaEnvelope<EmptyResult>(success: false, code: failure.code, msg: failure.msg, t: t)
            json = (try? CloudJSON.string(envelope)) ?? "{\"success\":false,\"code\":500}"
        }
        var headers: HTTPFields = [.contentType: "application/json"]
        for (name, value) in outcome.headers {
            switch name.lowercased() {
            case "retry-after": headers[.retryAfter] = value
            case "allow": headers[.allow] = value
            default: break
            }
        }
        return Response(
            status: .init(code: envelopeStatuses ? 200 : outcome.failure?.httpStatus ?? outcome.status),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: json))
        )
    }

    /// RFC 7240's answer to `Prefer`: which preference was honoured.
    static let preferenceApplied = HTTPField.Name("Preference-Applied")!

    /// The 404 or 405 (with `Allow`) of a request the route table does not serve; nil when it does.
    static func routeFailure(_ request: EmulatorRequest, outcome: inout Outcome) -> EmulatorFailure? {
        switch EmulatorRoutes.match(method: request.method, path: request.path) {
        case .served:
            return nil
        case .notFound:
            return EmulatorFailure(TuyaErrorCode.uriPathInvalid, "uri path invalid: no route \(request.path)")
        case .methodNotAllowed(let allow):
            outcome.headers.append(("Allow", allow.joined(separator: ", ")))
            return EmulatorFailure(
                TuyaErrorCode.uriPathInvalid,
                "uri path invalid: \(request.path) takes \(allow.joined(separator: ", ")), not \(request.method)",
                httpStatus: 405
            )
        }
    }

    func log(
        _ request: EmulatorRequest,
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

extension Duration {
    var millis: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension WallClock {
    /// Milliseconds since the epoch.
    var millis: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded()) }
}
