import Foundation
import Hummingbird
import Logging
import NBGWCore
import Registry
import Synchronization

/// Wraps the router: authenticates every request (bearer API key) and applies the per-key rate
/// limit before any route runs, and turns every failure into `{"error":{"code","message"}}`.
///
/// Order matters for "nothing happens": the key is checked before the body is read and before
/// any handler can touch the store.
public struct IngestResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == IngestRequestContext {
    public typealias Context = IngestRequestContext

    let inner: Inner
    let registry: Registry
    let rateLimiter: TokenBucketRateLimiter?
    let usage: APIKeyUsage
    let trustedProxies: Set<String>
    let logger: Logger

    public func respond(to request: Request, context: Context) async throws -> Response {
        var context = context
        context.resolveForwardedClient(request, trustedProxies: trustedProxies)
        do {
            let found = try authenticate(request)
            let key = found.name
            context.apiKeyName = key
            context.apiKeyScope = found.scope.rawValue
            if let rateLimiter, let wait = rateLimiter.acquire(key) {
                let seconds = max(1, Int((Double(wait.components.seconds) + 0.999).rounded(.down)))
                throw IngestError(
                    .rateLimited,
                    "API key \(key) is over its rate limit (\(rateLimiter.requestsPerSecond) requests/s, "
                        + "burst \(rateLimiter.burst)); retry after \(seconds) s",
                    retryAfterSeconds: seconds
                )
            }
            let route = try IngestResponder.checkRoute(request)
            if found.scope == .bind, !IngestService.bindScopeRoutes.contains(route) {
                throw IngestError(
                    .permissionDenied,
                    "API key \(key) has scope bind: it parses QR codes, binds and reads pairing results only; "
                        + "\(route) needs a key of scope full (`nbgw apikeys create --name NAME --scope full`)"
                )
            }
            return try await inner.respond(to: request, context: context)
        } catch {
            let mapped = IngestResponder.map(error, request: request)
            if mapped.status >= 500 {
                logger.error(
                    "ingest request failed",
                    metadata: [
                        "method": "\(request.method)", "path": "\(request.uri.path)", "code": "\(mapped.code)",
                        "error": "\(mapped.message)",
                    ]
                )
            }
            return IngestJSON.errorResponse(mapped)
        }
    }

    /// The API key, or 401. The key itself is never logged or echoed.
    func authenticate(_ request: Request) throws -> Registry.APIKey {
        guard let header = request.headers[.authorization] else {
            throw IngestError(
                .unauthenticated,
                "missing API key: send `Authorization: Bearer <key>`; an operator creates keys with "
                    + "`nbgw apikeys create --name NAME`"
            )
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw IngestError(.unauthenticated, "the Authorization header must be `Bearer <key>`")
        }
        guard let key = try APIKeyCheck.verify(String(parts[1]), registry: registry) else {
            throw IngestError(
                .unauthenticated,
                "the API key is unknown or revoked; ask an operator for a current key (`nbgw apikeys list`)"
            )
        }
        usage.touch(key.name, registry: registry, logger: logger)
        return key
    }

    /// 404 for a path no route has, 405 for a known path with another method, with the `Allow`
    /// header listing the methods it takes (RFC 9110 §15.5.6). (Hummingbird's router answers both
    /// with its own 404 body; the ingest API answers with its error body.)
    @discardableResult
    static func checkRoute(_ request: Request) throws -> IngestService.Route {
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let matching = IngestService.routeTemplates.filter { template in
            template.segments.count == segments.count
                && zip(template.segments, segments).allSatisfy { $0.isEmpty ? !$1.isEmpty : $0 == $1 }
        }
        if matching.isEmpty {
            throw IngestError(
                .notFound,
                "no route \(request.method) \(request.uri.path.escapedForDisplay()); see docs/ingest-api.yaml"
            )
        }
        if let route = matching.first(where: { $0.method == request.method.rawValue })?.route {
            return route
        }
        let allowed = matching.map(\.method)
        var error = IngestError(
            .methodNotAllowed,
            "\(request.uri.path.escapedForDisplay()) does not take \(request.method); it takes "
                + allowed.joined(separator: ", ") + " (docs/ingest-api.yaml)"
        )
        error.allow = allowed
        throw error
    }

    static func map(_ error: any Error, request: Request) -> IngestError {
        switch error {
        case let error as IngestError:
            return error
        case let error as NBGWError:
            return IngestError(error)
        case let error as any HTTPResponseError:
            switch error.status {
            case .notFound:
                return IngestError(
                    .notFound,
                    "no route \(request.method) \(request.uri.path.escapedForDisplay()); see docs/ingest-api.yaml"
                )
            case .methodNotAllowed:
                return IngestError(
                    .methodNotAllowed,
                    "\(request.uri.path.escapedForDisplay()) does not take \(request.method); see docs/ingest-api.yaml"
                )
            case .contentTooLarge:
                return StrictJSON.tooLarge(0)
            default:
                return IngestError(
                    status: error.status.code,
                    code: error.status.code < 500
                        ? ErrorCode.invalidArgument.rawValue : ErrorCode.internalError.rawValue,
                    message: "\(error.status.reasonPhrase) (\(request.method) \(request.uri.path.escapedForDisplay()))"
                )
            }
        default:
            return IngestError(
                status: 500,
                code: ErrorCode.internalError.rawValue,
                message: "internal error handling \(request.method) \(request.uri.path.escapedForDisplay()): "
                    + "\(error); please report it"
            )
        }
    }
}

/// Verifies presented keys (kept separate so tests and the CLI share it).
enum APIKeyCheck {
    static func verify(_ presented: String, registry: Registry) throws(NBGWError) -> Registry.APIKey? {
        try IngestAPIKeys.verify(presented, registry: registry)
    }
}

/// Updates `last_used_at` at most once a minute per key: informational, so not worth a write
/// per request.
final class APIKeyUsage: Sendable {
    private let lastTouched = Mutex<[String: ContinuousClock.Instant]>([:])

    func touch(_ name: String, registry: Registry, logger: Logger) {
        let now = ContinuousClock.now
        let due = lastTouched.withLock { lastTouched in
            let due = lastTouched[name].map { $0.duration(to: now) > .seconds(60) } ?? true
            if due { lastTouched[name] = now }
            return due
        }
        guard due else { return }
        // Off the request path: a store locked by a batch must not delay (or fail) the request.
        Task.detached(priority: .background) {
            do {
                try registry.apiKeys.touch(name: name)
            } catch {
                logger.warning("could not record API key use", metadata: ["key": "\(name)", "error": "\(error)"])
            }
        }
    }
}
