import Foundation
import HTTPTypes
import Hummingbird
import Ingest
import Logging
import NBGWCore

/// One listener, two audiences: `/v1/…` goes to the ingest API (bearer keys, JSON, unchanged),
/// everything else to the console (sessions, pages), whose answers all carry the security headers.
public struct ConsoleResponder<IngestInner: HTTPResponder, ConsoleInner: HTTPResponder>: HTTPResponder
where IngestInner.Context == IngestRequestContext, ConsoleInner.Context == IngestRequestContext {
    public typealias Context = IngestRequestContext

    let ingest: IngestInner
    let console: ConsoleInner
    let templates: ConsoleTemplates
    let secure: Bool
    let trustedProxies: Set<String>
    let logger: Logger

    public func respond(to request: Request, context: Context) async throws -> Response {
        var context = context
        context.resolveForwardedClient(request, trustedProxies: trustedProxies)
        let path = request.uri.path
        if path == "/v1" || path.hasPrefix("/v1/") {
            return try await ingest.respond(to: request, context: context)
        }
        // RFC 9110 §9.3.2: HEAD is GET without the content. Hummingbird routes HEAD to nothing (404),
        // so a monitor's `curl -I /signin` would say the console is missing.
        let isHead = request.method == .head
        var routed = request
        if isHead {
            var head = request.head
            head.method = .get
            routed = Request(head: head, body: request.body)
        }
        var response: Response
        do {
            response = try await console.respond(to: routed, context: context)
        } catch {
            response = failure(error, request: routed)
        }
        ConsoleHeaders.apply(to: &response.headers, secure: secure)
        if isHead {
            response.body = ResponseBody()
        }
        return response
    }

    private func wantsJSON(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("application/json") == true
    }

    func failure(_ error: any Error, request: Request) -> Response {
        let status: HTTPResponse.Status
        let code: String
        let message: String
        switch error {
        case ConsoleFailure.signInNeeded:
            if !wantsJSON(request), request.method == .get || request.method == .head {
                return ConsoleResponses.redirect(to: "/signin")
            }
            (status, code, message) = (.unauthorized, "UNAUTHENTICATED", "sign in first (your session ended)")
        case ConsoleFailure.forbidden(let why):
            (status, code, message) = (.forbidden, "PERMISSION_DENIED", why)
        case ConsoleFailure.csrf(let why):
            (status, code, message) = (.forbidden, "CSRF_REFUSED", why)
        case ConsoleFailure.notFound(let what):
            (status, code, message) = (.notFound, "NOT_FOUND", what)
        case ConsoleFailure.bad(let error):
            (status, code, message) = (
                .init(code: error.code.httpStatus), error.code.rawValue, error.message
            )
        case let error as NBGWError:
            (status, code, message) = (.init(code: error.code.httpStatus), error.code.rawValue, error.message)
        case let error as HTTPError:
            (status, code, message) = (
                error.status, error.status == .notFound ? "NOT_FOUND" : "HTTP", "\(error.status)"
            )
        default:
            logger.error("console request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            (status, code, message) = (
                .internalServerError, "INTERNAL", "the console failed; the gateway's log says why"
            )
        }
        if wantsJSON(request) {
            return ConsoleResponses.json(
                ["status": "failed", "headline": "Refused", "code": code, "message": message],
                status: status
            )
        }
        let page = templates.render(
            "message",
            [
                "title": status == .notFound ? "Not found" : "Refused", "page": "message", "kind": "failed",
                "headline": status.reasonPhrase, "code": code, "message": message, "back": "/",
                "version": NBGWVersion.current,
            ]
        )
        return ConsoleResponses.html(page, status: status)
    }
}

/// The headers every console answer carries (docs/console.md, "Security").
enum ConsoleHeaders {
    /// Scripts, styles, images and connections from this origin only; no inline script or style
    /// (`'unsafe-inline'` is absent), no plugins, no framing, forms post here only. `blob:` for
    /// the camera preview, `data:` for label images a labels provider may inline.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        + "media-src 'self' blob: mediastream:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
        + "base-uri 'none'; object-src 'none'"

    static func apply(to headers: inout HTTPFields, secure: Bool) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        // same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` with form posts, and
        // the CSRF check refuses those (seen in the browser tests).
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
        // The camera for this origin only (the bind page); nothing else a page could ask for.
        headers[HTTPField.Name("Permissions-Policy")!] =
            "camera=(self), microphone=(), geolocation=(), usb=(), serial=(), payment=()"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
        if secure { headers[.strictTransportSecurity] = "max-age=31536000" }
    }
}

/// Building answers.
enum ConsoleResponses {
    static func html(_ text: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ value: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    static func redirect(to location: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }
}
