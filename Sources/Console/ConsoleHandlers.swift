import Cloud
import Foundation
import HTTPTypes
import Hummingbird
import Ingest
import Logging
import NBGWCore
import PosixSupport
import Provisioning
import Registry

/// The console's route handlers; one extension per concern (`ConsoleHandlers+Bind.swift`, …).
/// Every handler but the sign-in page's and the static files' starts with ``session(_:_:role:)``;
/// every handler that changes something checks the CSRF token first (``checkCSRF(_:_:form:)``).
struct ConsoleHandlers: Sendable {
    /// The cookies' names: with `Secure`, the `__Host-` prefix (RFC 6265bis §4.1.3.2), so that
    /// the browser takes them only over HTTPS, for this host alone and path `/` (a sibling host
    /// or a plain-HTTP page cannot plant one).
    var sessionCookie: String { configuration.secureCookies ? "__Host-nbgw_session" : "nbgw_session" }
    var signInCookie: String { configuration.secureCookies ? "__Host-nbgw_signin" : "nbgw_signin" }

    let registry: Registry
    let cloud: any CloudService
    let service: BindingService
    let sessions: ConsoleSessions
    let signIn: ConsoleSignIn
    let templates: ConsoleTemplates
    let configuration: ConsoleConfiguration
    let batches: ConsoleBatches
    /// Where camera frames are decoded (zbar): never on the cooperative pool.
    let frames: BoundedWorkQueue
    /// Where labels are drawn (cairo, libqrencode): never on the cooperative pool.
    let labelWork: BoundedWorkQueue
    let logger: Logger

    // MARK: Sessions and roles

    /// The request's live session with at least `role`, or a failure the responder turns into the
    /// sign-in page (no session) or 403 (a lesser role).
    func session(
        _ request: Request,
        _ context: IngestRequestContext,
        role: ConsoleOperator.Role
    ) throws -> ConsoleSession {
        guard let session = try sessions.session(for: request.cookies[sessionCookie]?.value) else {
            throw ConsoleFailure.signInNeeded
        }
        guard session.role >= role else {
            throw ConsoleFailure.forbidden(
                "\(session.operatorName) is a \(session.role.rawValue); this needs the \(role.rawValue) role "
                    + "(`nbgw operators add \(session.operatorName) --role \(role.rawValue) --replace`)"
            )
        }
        return session
    }

    /// Refuses a change without the session's CSRF token (form field `csrf` or header
    /// `X-CSRF-Token`), or one whose `Origin` is not this console's: scheme, host and port, against
    /// ``ConsoleConfiguration/publicOrigin`` or else the listener's scheme and the request's host.
    func checkCSRF(_ request: Request, _ session: ConsoleSession, form: [String: String]) throws {
        try checkOrigin(request)
        let token = form["csrf"] ?? request.headers[HTTPField.Name("X-CSRF-Token")!]
        guard session.acceptsCSRF(token) else {
            throw ConsoleFailure.csrf(
                "the form's security token is missing or stale; reload the page and try again (nothing was changed)"
            )
        }
    }

    /// The `Origin` check alone (sign-in has no session yet). No `Origin` passes: browsers send it
    /// with every cross-site POST, and the token check follows.
    func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers[.origin] else { return }
        let expected =
            configuration.publicOrigin
            ?? request.head.authority.map { ConsoleConfiguration.normalizedOrigin("\(configuration.scheme)://\($0)") }
        guard origin != "null", let expected, ConsoleConfiguration.normalizedOrigin(origin) == expected else {
            throw ConsoleFailure.csrf(
                "the request came from another site (\(origin.escapedForDisplay())); nothing was changed"
            )
        }
    }

    /// A form body (at most 64 KiB).
    func form(_ request: Request) async throws -> [String: String] {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: 64 * 1024)
        } catch {
            throw ConsoleFailure.bad(NBGWError(.payloadTooLarge, "a form is at most 64 KiB"))
        }
        return ConsoleForm.parse(Substring(String(buffer: buffer)))
    }

    func query(_ request: Request) -> [String: String] {
        ConsoleForm.parse(Substring(request.uri.query ?? ""))
    }

    func wantsJSON(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("application/json") == true
    }

    // MARK: Pages

    /// The navigation for a role, with the current page marked.
    static func navigation(for role: ConsoleOperator.Role, current: String) -> [[String: Any]] {
        var items: [(String, String, String, ConsoleOperator.Role)] = [
            ("modems", "/modems", "Modems", .operator),
            ("bind", "/bind", "Bind", .binder),
            ("batch", "/batch", "Batch", .operator),
            ("devices", "/devices", "Devices", .operator),
            ("bindings", "/bindings", "Bindings", .operator),
            ("accounts", "/accounts", "Accounts", .operator),
            ("homes", "/homes", "Homes", .operator),
            ("tokens", "/tokens", "Tokens", .binder),
        ]
        items.removeAll { role < $0.3 }
        return items.map { item in
            var entry: [String: Any] = ["href": item.1, "label": item.2]
            if item.0 == current { entry["current"] = true }
            return entry
        }
    }

    /// A page for a signed-in session: the shared header's values plus `values`.
    func page(
        _ name: String,
        title: String,
        nav: String,
        session: ConsoleSession,
        _ values: [String: Any] = [:],
        status: HTTPResponse.Status = .ok,
        flash: (kind: String, text: String)? = nil
    ) -> Response {
        var context = values
        context["title"] = title
        context["page"] = name == "list" ? nav : name
        context["csrf"] = session.csrfToken
        context["operator"] = session.operatorName
        context["role"] = session.role.rawValue
        context["nav"] = Self.navigation(for: session.role, current: nav)
        context["version"] = NBGWVersion.current
        if let flash { context["flash"] = ["kind": flash.kind, "text": flash.text] }
        return ConsoleResponses.html(templates.render(name, context), status: status)
    }

    /// The result of a change, as the page shows it big: `bound`, `unchanged` or `failed`, with
    /// the CLI's code and message.
    static func result(status: String, code: String, message: String, deviceID: String? = nil) -> [String: Any] {
        let kind = status == "bound" || status == "unbound" ? "bound" : (status == "unchanged" ? "unchanged" : "failed")
        var value: [String: Any] = [
            "status": status, "kind": kind, "code": code, "message": message,
            "headline": headline(status: status, code: code),
        ]
        if let deviceID { value["deviceId"] = deviceID }
        return value
    }

    static func headline(status: String, code: String) -> String {
        switch status {
        case "bound": return "Bound"
        case "unchanged": return "Already bound here"
        case "unbound": return "Unbound"
        default: break
        }
        switch code {
        case ErrorCode.deviceAlreadyBound.rawValue: return "Bound to someone else"
        case ErrorCode.tokenExpired.rawValue: return "Token expired"
        case ErrorCode.tokenInvalid.rawValue: return "Unknown token"
        case ErrorCode.unknownDevice.rawValue: return "Unknown device"
        case ErrorCode.qrProtocolNotRecognized.rawValue, ErrorCode.invalidQR.rawValue: return "Not a device code"
        case ErrorCode.notNBDevice.rawValue: return "Not an NB device"
        case ErrorCode.homeAccessDenied.rawValue, ErrorCode.guestNotAllowedStrongBind.rawValue,
            ErrorCode.productNotAllowed.rawValue:
            return "Not allowed"
        case ErrorCode.timeout.rawValue: return "Timed out"
        default: return "Not bound"
        }
    }

    static func date(_ date: Date?) -> String {
        guard let date else { return "" }
        return date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
        )
    }

    /// Records a console action; a failure to write the trail is logged, never hidden.
    func audit(
        _ event: String,
        _ session: ConsoleSession,
        _ context: IngestRequestContext,
        deviceID: String? = nil,
        code: String? = nil,
        detail: String? = nil
    ) {
        do {
            try registry.console.recordAction(
                event,
                operator: session.operatorName,
                clientAddress: context.clientAddress,
                deviceID: deviceID,
                code: code,
                detail: detail
            )
        } catch {
            logger.error(
                "console action not audited",
                metadata: ["event": "\(event)", "operator": "\(session.operatorName)", "error": "\(error.message)"]
            )
        }
    }
}
