import Foundation
import HTTPTypes
import Hummingbird
import NBGWCore
import TuyaCloud

/// The route handlers of nbgw's cloud profile (docs/cloud-api.yaml), once for every store: checks
/// the signature, timestamp, nonce and access token exactly as a Tuya OpenAPI gateway would, routes
/// to the ``CloudServerStore``, and writes the envelope. The emulator puts its fault injection
/// around it; `nbgw-cloud` its tenants, limits and metrics.
public struct CloudServerHandler: Sendable {
    public let settings: CloudServerSettings
    public let store: any CloudServerStore
    let replays: ReplayCache
    /// Event polls waiting now (``CloudServerSettings/maximumEventWaiters``).
    let eventWaiters = CloudServerWaiters()

    /// Request bodies over this size are refused; nbgw's bodies are well under 4 KiB.
    public static let maximumBodyBytes = 64 * 1024

    public init(settings: CloudServerSettings, store: any CloudServerStore) {
        self.settings = settings
        self.store = store
        self.replays = ReplayCache(windowMillis: settings.allowedClockSkew.cloudMillis)
    }

    /// What one handled request produced.
    public struct Outcome: Sendable {
        public var status: Int = 200
        /// The raw JSON of `result`, or nil for a failure.
        public var result: String?
        public var failure: CloudServerFailure?
        /// Method and route template (no token or device id of a path), for logs and metrics.
        public var route: String
        public var key: String?
        public var replayed = false
        /// A state-changing call that changed state now (not a replay, not a refusal).
        public var changesState = false
        public var headers: [(String, String)] = []
        /// Who signed it, once authenticated.
        public var principal: CloudPrincipal?
        /// The injected fault that shaped this answer, for the request log (the emulator's).
        public var fault: String?

        public init(route: String) { self.route = route }
    }

    /// Called once a call is authenticated (and its access token checked, for a business call),
    /// before it reaches its route: a failure returned here is the answer (the emulator's
    /// expired-token and busy faults; `nbgw-cloud`'s per-tenant rate limit).
    public typealias Gate = @Sendable (_ principal: CloudPrincipal, _ businessCall: Bool, _ outcome: inout Outcome) ->
        CloudServerFailure?

    /// Authenticates, applies `gate`, then routes.
    public func handle(_ request: CloudServerRequest, now: Int64, gate: Gate? = nil) async -> Outcome {
        var outcome = Outcome(route: CloudServerHandler.route(request))
        let principal: CloudPrincipal
        let accessToken: String?
        switch await authenticate(request, now: now) {
        case .failure(let failure):
            outcome.failure = failure
            return outcome
        case .success(let authenticated):
            (principal, accessToken) = authenticated
        }
        outcome.principal = principal
        if let failure = CloudServerHandler.routeFailure(request, outcome: &outcome) {
            outcome.failure = failure
            return outcome
        }
        if let accessToken {
            do {
                if let failure = try await store.checkAccessToken(principal, accessToken: accessToken, now: now) {
                    outcome.failure = failure
                    return outcome
                }
            } catch {
                outcome.failure = .storeFailed(error)
                return outcome
            }
        }
        if let gate, let failure = gate(principal, accessToken != nil, &outcome) {
            outcome.failure = failure
            return outcome
        }
        return await dispatch(request, principal: principal, outcome: outcome, now: now)
    }

    // MARK: Responses

    /// The answer to send. With `envelopeStatuses`, a refusal is HTTP 200 with its envelope, as
    /// Tuya's gateways answer and Tuya's SDKs expect (tuya-connector-python reads no body from any
    /// other status); without, it carries the HTTP status of its code (``CloudServerFailure/httpStatus``),
    /// for clients that send `Prefer: http-status`. Gateway-level refusals (an injected 503, a rate
    /// limit's 429) are sent without the envelope status whatever the client prefers: they stand
    /// for a gateway in trouble, not for an answer of the API.
    public static func response(_ outcome: Outcome, t: Int64, envelopeStatuses: Bool = false) -> Response {
        let json: String
        if let result = outcome.result {
            json = "{\"result\":\(result),\"success\":true,\"t\":\(t)}"
        } else {
            let failure = outcome.failure ?? CloudServerFailure(TuyaErrorCode.systemError, "system error")
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

    /// The answer to `request` for `outcome`, in the status form the client asked for.
    public static func answer(_ outcome: Outcome, to request: CloudServerRequest, t: Int64) -> Response {
        guard request.prefersHTTPStatuses else { return response(outcome, t: t, envelopeStatuses: true) }
        var answer = response(outcome, t: t)
        answer.headers[preferenceApplied] = CloudServerRequest.httpStatusPreference
        return answer
    }

    /// RFC 7240's answer to `Prefer`: which preference was honoured.
    public static let preferenceApplied = HTTPField.Name("Preference-Applied")!

    /// The 404 or 405 (with `Allow`) of a request the route table does not serve; nil when it does.
    public static func routeFailure(
        _ request: CloudServerRequest,
        outcome: inout Outcome,
        routes: [(method: String, path: String)] = CloudServerRoutes.api
    ) -> CloudServerFailure? {
        switch CloudServerRoutes.match(method: request.method, path: request.path, in: routes) {
        case .served:
            return nil
        case .notFound:
            return CloudServerFailure(TuyaErrorCode.uriPathInvalid, "uri path invalid: no route \(request.path)")
        case .methodNotAllowed(let allow):
            outcome.headers.append(("Allow", allow.joined(separator: ", ")))
            return CloudServerFailure(
                TuyaErrorCode.uriPathInvalid,
                "uri path invalid: \(request.path) takes \(allow.joined(separator: ", ")), not \(request.method)",
                httpStatus: 405
            )
        }
    }
}

extension Duration {
    /// Whole milliseconds.
    public var cloudMillis: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension WallClock {
    /// Milliseconds since the epoch.
    public var millis: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded()) }
}
