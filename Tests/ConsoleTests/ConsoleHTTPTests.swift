import Cloud
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Ingest
import Logging
import Registry
import Testing

@testable import Console

/// The console over real HTTP on loopback (Hummingbird's live test server): sign-in, CSRF,
/// roles, headers, and the ingest API still answering beside it.
@Suite struct ConsoleHTTPTests {
    static let hasher = ConsolePasswordHasher(logN: 10, parallelism: 1)

    func withConsole(_ body: @escaping @Sendable (any TestClientProtocol, Registry) async throws -> Void) async throws {
        let (registry, directory) = try temporaryRegistry()
        try registry.console.addOperator(
            name: "ana",
            role: .operator,
            passwordHash: try Self.hasher.hash("right password")
        )
        try registry.console.addOperator(
            name: "bo",
            role: .binder,
            passwordHash: try Self.hasher.hash("binder password")
        )
        let cloud = EmbeddedCloud()
        let logger = Logger(label: "test")
        let ingest = IngestConfiguration(port: 0, walCheckpointInterval: nil)
        let parts = ConsoleService.parts(
            configuration: ConsoleConfiguration(secureCookies: false, batchDirectory: directory + "/batches"),
            registry: registry,
            cloud: cloud,
            signIn: ConsoleSignIn(registry: registry, hasher: Self.hasher),
            logger: logger
        )
        let app = try IngestService.buildApplication(
            configuration: ingest,
            responder: ConsoleService.buildResponder(
                ingest: ingest,
                parts: parts,
                registry: registry,
                cloud: cloud,
                logger: logger
            ),
            logger: logger
        )
        try await app.test(.live) { client in try await body(client, registry) }
    }

    /// Signs in; returns the cookie header to send and the session's CSRF token (read from the page).
    func signIn(_ client: any TestClientProtocol, _ name: String, _ password: String) async throws -> (String, String) {
        let form = try await client.execute(uri: "/signin", method: .get)
        let token = try #require(String(buffer: form.body).firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        let preCookie = try #require(form.headers[.setCookie]?.split(separator: ";").first)
        let response = try await client.execute(
            uri: "/signin",
            method: .post,
            headers: [.cookie: String(preCookie), .contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(
                string: "csrf=\(token)&name=\(name)&password=\(password.replacingOccurrences(of: " ", with: "+"))"
            )
        )
        #expect(response.status == .seeOther)
        let cookies = response.headers[values: .setCookie]
        let session = try #require(cookies.first { $0.hasPrefix("nbgw_session=") })
        #expect(session.contains("HttpOnly"))
        #expect(session.contains("SameSite=Strict"))
        let cookie = String(session.split(separator: ";")[0])
        let page = try await client.execute(uri: "/bind", method: .get, headers: [.cookie: cookie])
        let csrf = try #require(String(buffer: page.body).firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
        return (cookie, String(csrf))
    }

    @Test func pagesNeedASessionAndSendTheSignInPageOtherwise() async throws {
        try await withConsole { client, _ in
            let response = try await client.execute(uri: "/modems", method: .get)
            #expect(response.status == .seeOther)
            #expect(response.headers[.location] == "/signin")
            let script = try await client.execute(
                uri: "/modems.json",
                method: .get,
                headers: [.accept: "application/json"]
            )
            #expect(script.status == .unauthorized)
        }
    }

    @Test func everyConsoleAnswerCarriesTheSecurityHeaders() async throws {
        try await withConsole { client, _ in
            for uri in ["/signin", "/static/console.js", "/modems", "/nowhere"] {
                let response = try await client.execute(uri: uri, method: .get)
                let csp = try #require(response.headers[.contentSecurityPolicy], "\(uri)")
                #expect(csp.contains("script-src 'self'"))
                #expect(!csp.contains("unsafe-inline"))
                #expect(csp.contains("frame-ancestors 'none'"))
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
            }
        }
    }

    @Test func headAnswersLikeGetWithoutTheContent() async throws {
        try await withConsole { client, _ in
            let get = try await client.execute(uri: "/signin", method: .get)
            let head = try await client.execute(uri: "/signin", method: .head)
            #expect(get.status == .ok && head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(head.headers[.contentSecurityPolicy] == get.headers[.contentSecurityPolicy])
            let page = try await client.execute(uri: "/modems", method: .head)
            #expect(page.status == .seeOther && page.headers[.location] == "/signin")
            let missing = try await client.execute(uri: "/nowhere", method: .head)
            #expect(missing.status == .notFound && missing.body.readableBytes == 0)
        }
    }

    @Test func aSignInWithoutItsFormTokenIsRefused() async throws {
        try await withConsole { client, registry in
            let response = try await client.execute(
                uri: "/signin",
                method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "name=ana&password=right+password")
            )
            #expect(response.status == .forbidden)
            #expect(response.headers[values: .setCookie].allSatisfy { !$0.hasPrefix("nbgw_session=") })
            #expect(try registry.console.audit().first?.code == "CSRF_REFUSED")
        }
    }

    @Test func aChangeWithoutTheSessionsCSRFTokenChangesNothing() async throws {
        try await withConsole { client, registry in
            _ = try registry.directory.addAccount(name: "owner", role: .owner)
            _ = try registry.directory.addHome(name: "lab", owner: "owner")
            let (cookie, csrf) = try await signIn(client, "ana", "right password")
            for token in ["", "csrf=forged", "csrf=\(csrf)x"] {
                let response = try await client.execute(
                    uri: "/tokens",
                    method: .post,
                    headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "\(token)&home=lab")
                )
                #expect(response.status == .forbidden, "\(token)")
            }
            #expect(try registry.console.searchTokens("", offset: 0, limit: 10).items.isEmpty)
            let accepted = try await client.execute(
                uri: "/tokens",
                method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(csrf)&home=lab")
            )
            #expect(accepted.status == .seeOther)
            #expect(try registry.console.searchTokens("", offset: 0, limit: 10).items.count == 1)
        }
    }

    @Test func aRequestFromAnotherOriginIsRefusedEvenWithTheToken() async throws {
        try await withConsole { client, registry in
            _ = try registry.directory.addAccount(name: "owner", role: .owner)
            _ = try registry.directory.addHome(name: "lab", owner: "owner")
            let (cookie, csrf) = try await signIn(client, "ana", "right password")
            let response = try await client.execute(
                uri: "/tokens",
                method: .post,
                headers: [
                    .cookie: cookie, .contentType: "application/x-www-form-urlencoded", .origin: "https://evil.example",
                ],
                body: ByteBuffer(string: "csrf=\(csrf)&home=lab")
            )
            #expect(response.status == .forbidden)
        }
    }

    @Test func aBinderCannotReachTheOperatorsPages() async throws {
        try await withConsole { client, _ in
            let (cookie, _) = try await signIn(client, "bo", "binder password")
            #expect(try await client.execute(uri: "/bind", method: .get, headers: [.cookie: cookie]).status == .ok)
            for uri in ["/modems", "/batch", "/devices", "/bindings"] {
                #expect(
                    try await client.execute(uri: uri, method: .get, headers: [.cookie: cookie]).status == .forbidden
                )
            }
        }
    }

    @Test func signingOutEndsTheSession() async throws {
        try await withConsole { client, registry in
            let (cookie, csrf) = try await signIn(client, "ana", "right password")
            let out = try await client.execute(
                uri: "/signout",
                method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(csrf)")
            )
            #expect(out.status == .seeOther)
            #expect(
                try await client.execute(uri: "/bind", method: .get, headers: [.cookie: cookie]).status == .seeOther
            )
            #expect(try registry.console.audit().first?.event == "signout")
        }
    }

    @Test func theIngestAPIStillAnswersBesideTheConsole() async throws {
        try await withConsole { client, _ in
            let response = try await client.execute(uri: "/v1/modems", method: .get)
            #expect(response.status == .unauthorized)
            #expect(String(buffer: response.body).contains("UNAUTHENTICATED"))
        }
    }
}
