import Foundation
import HTTPTypes
import Hummingbird
import Ingest
import NBGWCore
import Registry

extension ConsoleHandlers {
    func cookie(_ name: String, _ value: String, maxAge: Int? = nil) -> String {
        var text = "\(name)=\(value); Path=/; HttpOnly; SameSite=Strict"
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        if configuration.secureCookies { text += "; Secure" }
        return text
    }

    /// `GET /signin`: the form, with a fresh sign-in token in a cookie and in the form (a sign-in
    /// has no session yet, so its CSRF check is the double-submitted token).
    func signInPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        if try sessions.session(for: request.cookies[sessionCookie]?.value) != nil {
            return ConsoleResponses.redirect(to: "/")
        }
        return signInForm(name: "", flash: nil, status: .ok)
    }

    func signInForm(name: String, flash: String?, status: HTTPResponse.Status) -> Response {
        let token = ConsoleSecret.token()
        var context: [String: Any] = [
            "title": "Sign in", "page": "signin", "signinToken": token, "name": name, "version": NBGWVersion.current,
        ]
        if let flash { context["flash"] = ["kind": "error", "text": flash] }
        return ConsoleResponses.html(
            templates.render("signin", context),
            status: status,
            headers: [.setCookie: cookie(signInCookie, token, maxAge: 3600)]
        )
    }

    /// `POST /signin`.
    func signInSubmit(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let fields = try await form(request)
        let name = fields["name"] ?? ""
        try checkOrigin(request)
        guard let sent = fields["csrf"], let expected = request.cookies[signInCookie]?.value,
            ConsoleSecret.equal(sent, expected)
        else {
            try? registry.console.recordAction(
                "signin_refused",
                operator: name.isEmpty ? "(empty)" : String(name.prefix(64)),
                clientAddress: context.clientAddress,
                code: "CSRF_REFUSED",
                detail: "sign-in form without its token"
            )
            return signInForm(
                name: name,
                flash: "The sign-in form's security token is missing or stale; try again.",
                status: .forbidden
            )
        }
        let outcome = try await signIn.attempt(
            name: name,
            password: fields["password"] ?? "",
            clientAddress: context.clientAddress
        )
        switch outcome {
        case .signedIn(let found):
            let (value, _) = try sessions.start(operator: found, clientAddress: context.clientAddress)
            var headers = HTTPFields()
            headers.append(HTTPField(name: .setCookie, value: cookie(sessionCookie, value)))
            headers.append(HTTPField(name: .setCookie, value: cookie(signInCookie, "", maxAge: 0)))
            return ConsoleResponses.redirect(to: found.role >= .operator ? "/modems" : "/bind", headers: headers)
        case .refused:
            return signInForm(name: name, flash: "Wrong name or password.", status: .unauthorized)
        case .locked(let until):
            var response = signInForm(
                name: name,
                flash: "Too many failed sign-ins for this name from this address: locked until \(Self.date(until)) "
                    + "UTC. An admin can lift it with `nbgw operators unlock NAME`.",
                status: .tooManyRequests
            )
            response.headers[.retryAfter] = String(
                max(1, Int(until.timeIntervalSince(signIn.clock.now()).rounded(.up)))
            )
            return response
        case .throttled(let wait):
            var response = signInForm(
                name: name,
                flash: "Too many sign-ins at once: wait a few seconds and try again.",
                status: .tooManyRequests
            )
            response.headers[.retryAfter] = String(max(1, Int(wait.inSeconds.rounded(.up))))
            return response
        }
    }

    /// `POST /signout`.
    func signOut(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .binder)
        try checkCSRF(request, session, form: try await form(request))
        try sessions.end(request.cookies[sessionCookie]?.value)
        audit("signout", session, context, code: "OK")
        return ConsoleResponses.redirect(
            to: "/signin",
            headers: [.setCookie: cookie(sessionCookie, "", maxAge: 0)]
        )
    }

    /// `GET /`: the first page of the role.
    func home(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .binder)
        return ConsoleResponses.redirect(to: session.role >= .operator ? "/modems" : "/bind")
    }

    /// `GET /static/NAME`.
    func asset(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        try asset(named: context.parameters.get("name") ?? "")
    }

    /// A file of ``ConsoleAssets``, or 404.
    func asset(named name: String) throws -> Response {
        guard let file = ConsoleAssets.files[name] else { throw ConsoleFailure.notFound("no file \(name)") }
        return Response(
            status: .ok,
            headers: [.contentType: file.type, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: file.body))
        )
    }
}
