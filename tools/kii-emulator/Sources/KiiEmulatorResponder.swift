import Foundation
import Hummingbird
import Logging

/// Answers the part of Kii's REST API nbgw uses (docs/cloud.md, "Kii Thing-IF"): injects the
/// planned faults, checks the app, the bearer token and the media type, then routes to the store.
public struct KiiEmulatorResponder: HTTPResponder {
    public typealias Context = KiiEmulatorRequestContext

    let configuration: KiiEmulatorConfiguration
    let store: KiiEmulatorStore
    let faults: KiiFaultInjector
    let logger: Logger

    /// Request bodies over this size are refused; nbgw's are well under 4 KiB.
    static let maximumBodyBytes = 64 * 1024

    /// A received request: method, path segments (percent-decoded), lower-cased headers, body.
    struct Incoming {
        var method: String
        var segments: [String]
        var headers: [String: String]
        var body: [UInt8]

        var bearer: String? {
            guard let value = headers["authorization"], value.lowercased().hasPrefix("bearer ") else { return nil }
            return String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
        }

        /// The media type without parameters, lower-cased (media types compare without case).
        var mediaType: String? {
            headers["content-type"].map {
                $0.split(separator: ";").first.map(String.init)?.trimmingCharacters(in: .whitespaces).lowercased()
                    ?? ""
            }
        }
    }

    /// What one handled request produced.
    struct Outcome {
        var status: Int
        var json: String?
        var errorCode: String?
        var changesState = false
        var headers: [(String, String)] = []

        static func error(_ status: Int, _ code: String, _ message: String) -> Outcome {
            let body = ["errorCode": code, "message": message]
            let json = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]))
                .map { String(decoding: $0, as: UTF8.self) }
            return Outcome(status: status, json: json, errorCode: code)
        }
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: Self.maximumBodyBytes)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let incoming = Incoming(
            method: request.method.rawValue.uppercased(),
            segments: request.uri.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) },
            headers: headers,
            body: Array(buffer.readableBytesView)
        )
        if incoming.segments.first == "admin" {
            return response(admin(incoming))
        }
        let plan = faults.current
        if plan.latencyMs > 0 {
            try? await Task.sleep(for: .milliseconds(plan.latencyMs))
        }
        let route = Self.route(incoming)
        if faults.take(.dropConnection) {
            log(incoming, route: route, status: 0, errorCode: nil, fault: "drop_connections")
            context.closeConnection()
            return Response(status: .ok)
        }
        if faults.take(.serverError) {
            log(incoming, route: route, status: 503, errorCode: "SERVICE_UNAVAILABLE", fault: "server_errors")
            return response(.error(503, "SERVICE_UNAVAILABLE", "injected: service unavailable"))
        }
        if faults.take(.rateLimit) {
            log(incoming, route: route, status: 429, errorCode: "TOO_MANY_REQUESTS", fault: "rate_limits")
            var outcome = Outcome.error(429, "TOO_MANY_REQUESTS", "injected: too many requests")
            outcome.headers = [("Retry-After", String(max(0, plan.retryAfterSeconds)))]
            return response(outcome)
        }
        var fault: String?
        let outcome = handle(incoming, fault: &fault)
        if outcome.changesState, (200...299).contains(outcome.status), faults.take(.dropAfterProcessing) {
            // The effect is committed; only the answer is lost, as when a link dies mid-reply.
            log(incoming, route: route, status: outcome.status, errorCode: nil, fault: "drop_after_processing")
            context.closeConnection()
            return Response(status: .ok)
        }
        log(incoming, route: route, status: outcome.status, errorCode: outcome.errorCode, fault: fault)
        return response(outcome)
    }

    /// Checks the app and the token, then routes.
    func handle(_ request: Incoming, fault: inout String?) -> Outcome {
        let segments = request.segments
        let appIndex: Int
        if segments.count >= 3, segments[0] == "thing-if" || segments[0] == "api", segments[1] == "apps" {
            appIndex = 2
        } else {
            return .error(404, "NOT_FOUND", "no such resource")
        }
        guard segments[appIndex] == configuration.appID,
            request.headers["x-kii-appid"].map({ $0 == configuration.appID }) ?? true
        else {
            return .error(404, "APP_NOT_FOUND", "the app was not found")
        }
        guard let token = request.bearer else {
            return .error(401, "WRONG_TOKEN", "an Authorization: Bearer token is required")
        }
        if faults.take(.expiredToken) {
            fault = "expired_tokens"
            return .error(401, "WRONG_TOKEN", "the access token has expired")
        }
        do {
            return try store.write { db -> Outcome in
                guard let principal = try store.principal(db, token: token) else {
                    return .error(401, "WRONG_TOKEN", "the access token is not valid for this app")
                }
                let caller = Principal(kind: principal.kind, id: principal.subject)
                return try route(request, segments: Array(segments.dropFirst(appIndex + 1)), caller: caller, db: db)
            }
        } catch {
            return .error(500, "INTERNAL_SERVER_ERROR", "\(error)")
        }
    }

    struct Principal {
        var kind: String
        var id: String

        var isUser: Bool { kind == "user" }
    }

    // MARK: Responses and logs

    func response(_ outcome: Outcome) -> Response {
        var headers: HTTPFields = [:]
        if outcome.json != nil { headers[.contentType] = "application/json" }
        for (name, value) in outcome.headers where name.lowercased() == "retry-after" {
            headers[.retryAfter] = value
        }
        return Response(
            status: .init(code: outcome.status),
            headers: headers,
            body: outcome.json.map { .init(byteBuffer: ByteBuffer(string: $0)) } ?? .init()
        )
    }

    /// The route with ids replaced, for the logs (`GET /api/apps/{app}/things/{thing}/ownership`).
    static func route(_ request: Incoming) -> String {
        let named = request.segments.enumerated().map { index, segment -> String in
            switch index {
            case 2: "{app}"
            case 4 where request.segments.count > 4: request.segments[3] == "users" ? "{user}" : "{thing}"
            case 6: "{owner}"
            default: segment
            }
        }
        return "\(request.method) /" + named.joined(separator: "/")
    }

    func log(_ request: Incoming, route: String, status: Int, errorCode: String?, fault: String?) {
        store.logRequest(
            at: Self.now(),
            method: request.method,
            route: route,
            status: status,
            errorCode: errorCode,
            fault: fault
        )
        logger.info(
            "request",
            metadata: [
                "route": "\(route)", "status": "\(status)", "error_code": "\(errorCode ?? "-")",
                "fault": "\(fault ?? "-")",
            ]
        )
    }

    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    static func json(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
