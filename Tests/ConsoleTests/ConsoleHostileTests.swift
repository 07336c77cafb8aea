import Cloud
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Ingest
import Logging
import Registry
import Synchronization
import Testing

@testable import Console

/// The console against hostile people (security review F3, F10, I1): sessions that must end,
/// a proxy in front, origins with the wrong scheme, sign-ins in a storm. Real HTTP on loopback.
@Suite struct ConsoleHostileTests {
    static let hasher = ConsolePasswordHasher(logN: 10, parallelism: 1)

    struct Setup: Sendable {
        var console: ConsoleConfiguration
        var trustedProxies: Set<String> = []
        var perAddressBurst = 1000
    }

    func withConsole(
        _ setup: @escaping @Sendable (String) -> Setup = {
            Setup(console: .init(secureCookies: false, batchDirectory: $0))
        },
        _ body: @escaping @Sendable (any TestClientProtocol, Registry) async throws -> Void
    ) async throws {
        let (registry, directory) = try temporaryRegistry()
        try registry.console.addOperator(
            name: "ana",
            role: .admin,
            passwordHash: try Self.hasher.hash("right password")
        )
        try await serve(registry: registry, setup(directory + "/batches"), body)
    }

    func serve(
        registry: Registry,
        _ setup: Setup,
        _ body: @escaping @Sendable (any TestClientProtocol, Registry) async throws -> Void
    ) async throws {
        let cloud = EmbeddedCloud()
        let logger = Logger(label: "test")
        var ingest = IngestConfiguration(port: 0, walCheckpointInterval: nil)
        ingest.trustedProxies = setup.trustedProxies
        let parts = ConsoleService.parts(
            configuration: setup.console,
            registry: registry,
            cloud: cloud,
            signIn: ConsoleSignIn(
                registry: registry,
                hasher: Self.hasher,
                perAddress: TokenBucketRateLimiter(
                    requestsPerSecond: 0.1,
                    burst: setup.perAddressBurst,
                    maxKeys: 64,
                    now: IngestConfiguration.uptime
                )
            ),
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

    /// The sign-in's answer, and the session cookie (`name=value`) when one was set.
    func signIn(
        _ client: any TestClientProtocol,
        _ name: String = "ana",
        _ password: String = "right password",
        headers extra: HTTPFields = [:]
    ) async throws -> (TestResponse, String?) {
        let form = try await client.execute(uri: "/signin", method: .get, headers: extra)
        let token = try #require(String(buffer: form.body).firstMatch(of: /name="csrf" value="([^"]+)"/)?.1)
        let preCookie = try #require(form.headers[.setCookie]?.split(separator: ";").first)
        var headers = extra
        headers[.cookie] = String(preCookie)
        headers[.contentType] = "application/x-www-form-urlencoded"
        let response = try await client.execute(
            uri: "/signin",
            method: .post,
            headers: headers,
            body: ByteBuffer(
                string: "csrf=\(token)&name=\(name)&password=\(password.replacingOccurrences(of: " ", with: "+"))"
            )
        )
        let session = response.headers[values: .setCookie].first {
            $0.contains("nbgw_session=") && !$0.contains("Max-Age=0")
        }
        return (response, session.map { String($0.split(separator: ";")[0]) })
    }

    @Test("a removed operator's open session is refused at its next request, whoever removed them")
    func aRemovedOperatorIsSignedOut() async throws {
        try await withConsole { client, registry in
            let (_, cookie) = try await signIn(client)
            let session = try #require(cookie)
            let before = try await client.execute(uri: "/modems", method: .get, headers: [.cookie: session])
            #expect(before.status == .ok)
            // `nbgw operators remove ana`, another process on the same store.
            #expect(try Registry(path: registry.path).console.removeOperator(named: "ana"))
            let after = try await client.execute(uri: "/modems", method: .get, headers: [.cookie: session])
            #expect(after.status == .seeOther)
            #expect(after.headers[.location] == "/signin")
        }
    }

    @Test("a console started again on the same store keeps everyone signed in")
    func sessionsSurviveARestart() async throws {
        let (registry, directory) = try temporaryRegistry()
        try registry.console.addOperator(
            name: "ana",
            role: .admin,
            passwordHash: try Self.hasher.hash("right password")
        )
        let setup = Setup(console: .init(secureCookies: false, batchDirectory: directory + "/batches"))
        let found = Mutex<String?>(nil)
        try await serve(registry: registry, setup) { client, _ in
            let cookie = try await signIn(client).1
            found.withLock { $0 = cookie }
        }
        let session = try #require(found.withLock { $0 })
        try await serve(registry: try Registry(path: registry.path), setup) { client, _ in
            let page = try await client.execute(uri: "/modems", method: .get, headers: [.cookie: session])
            #expect(page.status == .ok)
        }
    }

    @Test(
        "behind a TLS proxy: __Host- cookies with Secure, changes only from the public origin, the client's address audited"
    )
    func behindAProxy() async throws {
        try await withConsole({
            Setup(
                console: .init(
                    secureCookies: true,
                    scheme: "http",
                    publicOrigin: "https://gw.example",
                    batchDirectory: $0
                ),
                trustedProxies: ["127.0.0.1"]
            )
        }) { client, registry in
            let proxied: HTTPFields = [
                HTTPField.Name("X-Forwarded-For")!: "198.51.100.1, 203.0.113.5", .origin: "https://gw.example",
            ]
            let (response, cookie) = try await signIn(client, headers: proxied)
            #expect(response.status == .seeOther)
            let session = try #require(
                response.headers[values: .setCookie].first { $0.hasPrefix("__Host-nbgw_session=") }
            )
            #expect(session.contains("; Secure") && session.contains("Path=/") && !session.contains("Domain"))
            #expect(try registry.console.audit().first?.clientAddress == "203.0.113.5")
            // The same form from the proxy's plain-HTTP face (another scheme) changes nothing.
            let page = try await client.execute(uri: "/tokens", method: .get, headers: [.cookie: try #require(cookie)])
            let csrf = try #require(String(buffer: page.body).firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
            let refused = try await client.execute(
                uri: "/signout",
                method: .post,
                headers: [
                    .cookie: try #require(cookie), .origin: "http://gw.example",
                    .contentType: "application/x-www-form-urlencoded",
                ],
                body: ByteBuffer(string: "csrf=\(csrf)")
            )
            #expect(refused.status == .forbidden)
            let still = try await client.execute(uri: "/tokens", method: .get, headers: [.cookie: try #require(cookie)])
            #expect(still.status == .ok)
        }
    }

    @Test("an Origin of the right host but another scheme than the listener's is refused")
    func originSchemeMustMatch() async throws {
        try await withConsole { client, _ in
            // The test client sends `Host: localhost`: the console's own origin is http://localhost.
            let (_, cookie) = try await signIn(client)
            let page = try await client.execute(uri: "/tokens", method: .get, headers: [.cookie: try #require(cookie)])
            let csrf = try #require(String(buffer: page.body).firstMatch(of: /name="csrf-token" content="([^"]+)"/)?.1)
            let refused = try await client.execute(
                uri: "/signout",
                method: .post,
                headers: [
                    .cookie: try #require(cookie), .origin: "https://localhost",
                    .contentType: "application/x-www-form-urlencoded",
                ],
                body: ByteBuffer(string: "csrf=\(csrf)")
            )
            #expect(refused.status == .forbidden)
            let accepted = try await client.execute(
                uri: "/signout",
                method: .post,
                headers: [
                    .cookie: try #require(cookie), .origin: "http://localhost",
                    .contentType: "application/x-www-form-urlencoded",
                ],
                body: ByteBuffer(string: "csrf=\(csrf)")
            )
            #expect(accepted.status == .seeOther)
        }
    }

    @Test("X-Forwarded-For from a peer that is not a trusted proxy is ignored")
    func forwardedForFromAnyoneIsIgnored() async throws {
        try await withConsole { client, registry in
            let (_, cookie) = try await signIn(client, headers: [HTTPField.Name("X-Forwarded-For")!: "203.0.113.5"])
            #expect(cookie != nil)
            let recorded = try #require(try registry.console.audit().first?.clientAddress)
            #expect(recorded.hasPrefix("127.0.0.1:") || recorded.hasPrefix("[::1]:"))
        }
    }

    @Test("a storm from one address gets 429 with Retry-After before any password is checked")
    func signInStormIsThrottled() async throws {
        try await withConsole({
            Setup(console: .init(secureCookies: false, batchDirectory: $0), perAddressBurst: 3)
        }) { client, registry in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<5 { statuses.append(try await signIn(client, "ana", "wrong password").0.status) }
            #expect(statuses == [.unauthorized, .unauthorized, .unauthorized, .tooManyRequests, .tooManyRequests])
            let (throttled, _) = try await signIn(client, "ana", "right password")
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true)
            #expect(try registry.console.audit().filter { $0.event == "signin_refused" }.count == 3)
        }
    }
}
