import Foundation
import Hummingbird
import HummingbirdTesting
import Ingest
import NBGWCore
import Registry
import Synchronization
import Testing

/// A monotonic clock the test moves by hand.
final class ManualClock: Sendable {
    private let value = Mutex<Duration>(.zero)
    func now() -> Duration { value.withLock { $0 } }
    func advance(_ by: Duration) { value.withLock { $0 += by } }
}

@Suite("Ingest API errors, authentication and limits")
struct IngestErrorTests {
    @Test("Every binding rule code comes back with its HTTP status and the error body")
    func ruleCodes() async throws {
        let fixture = try await IngestFixture(devices: 4)
        try await fixture.withServer { client in
            let headers = fixture.headers()
            func bind(_ qr: String, _ account: String, _ home: String, token: String? = nil) async throws -> Reply {
                var body = ["qr": qr, "account": account, "home": home]
                body["token"] = token
                return try await client.call(.post, "/v1/bindings", headers: headers, body: jsonBody(body))
            }
            let cases: [(Reply, Int, String)] = [
                (try await bind("hello", "alice", "lab"), 400, "QR_PROTOCOL_NOT_RECOGNIZED"),
                (
                    try await bind(
                        "{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"a b\"}}",
                        "alice",
                        "lab"
                    ), 400, "INVALID_QR"
                ),
                (try await bind("3497-0112-332", "alice", "lab"), 400, "NOT_NB_DEVICE"),
                (try await bind(IngestFixture.bindJSON("nbnotregistered0000"), "alice", "lab"), 404, "UNKNOWN_DEVICE"),
                (try await bind(fixture.labels[0], "gus", "lab"), 403, "GUEST_NOT_ALLOWED_STRONG_BIND"),
                (try await bind(fixture.labels[0], "carol", "locked"), 403, "PRODUCT_NOT_ALLOWED"),
                (try await bind(fixture.labels[0], "alice", "bobs"), 403, "HOME_ACCESS_DENIED"),
                (try await bind(fixture.labels[0], "nobody", "lab"), 404, "UNKNOWN_ACCOUNT"),
                (try await bind(fixture.labels[0], "alice", "nohome"), 404, "UNKNOWN_HOME"),
                (
                    try await bind(fixture.labels[0], "alice", "lab", token: "AAAAAAAAAAAAAAAAAAAA"), 404,
                    "TOKEN_INVALID"
                ),
                (try await bind(fixture.labels[0], "alice", " lab"), 400, "INVALID_ARGUMENT"),
            ]
            for (reply, status, code) in cases {
                #expect(reply.status == status, "\(code): \(reply.body)")
                #expect(reply.code == code, "\(reply.body)")
                #expect(reply.message?.isEmpty == false)
                #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
            }
            #expect(try await bind(fixture.labels[0], "alice", "lab").status == 201)
            let conflict = try await bind(fixture.labels[0], "bob", "bobs")
            #expect(conflict.status == 409)
            #expect(conflict.code == "DEVICE_ALREADY_BOUND")
            let token = try await client.call(.post, "/v1/homes/lab/pairing-tokens", headers: headers).json["token"]
            #expect(try await bind(fixture.labels[1], "alice", "lab", token: token as? String).status == 201)
            let expired = try await bind(fixture.labels[2], "alice", "lab", token: token as? String)
            #expect(expired.status == 410)
            #expect(expired.code == "TOKEN_EXPIRED")
            let unknownAccount = try await client.call(.get, "/v1/bindings?account=nobody", headers: headers)
            #expect(unknownAccount.status == 404)
            #expect(unknownAccount.code == "UNKNOWN_ACCOUNT")
        }
        // Refused binds of registered devices (6 rule failures and the conflict) are audited with the key as operator.
        let rejected = try fixture.registry.audit.entries(deviceID: fixture.ids[0]).filter {
            $0.event == "bind_rejected"
        }
        #expect(rejected.count == 7)
        #expect(rejected.allSatisfy { $0.operator == fixture.keyName && $0.source == "http" })
        let trail = try fixture.registry.audit.ingestTrail(deviceID: fixture.ids[0]).filter {
            $0.event == "bind_rejected"
        }
        #expect(trail.count == 7)
        #expect(trail.allSatisfy { $0.auditID != nil && $0.clientAddress.hasPrefix("127.0.0.1:") })
    }

    @Test("TIMEOUT (503) when another process holds the store's write lock past the bind budget")
    func timeout() async throws {
        let fixture = try await IngestFixture(devices: 1)
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        locker.arguments = [fixture.path]
        let input = Pipe()
        let output = Pipe()
        locker.standardInput = input
        locker.standardOutput = output
        try locker.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("locked") {
            seen += output.fileHandleForReading.availableData
        }
        try await fixture.withServer(fixture.configuration(bindTimeout: .milliseconds(300))) { client in
            let reply = try await client.call(
                .post,
                "/v1/bindings",
                headers: fixture.headers(),
                body: jsonBody(["qr": fixture.labels[0], "account": "alice", "home": "lab"])
            )
            #expect(reply.status == 503)
            #expect(reply.code == "TIMEOUT")
        }
        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        try input.fileHandleForWriting.close()
        locker.waitUntilExit()
        #expect(try fixture.registry.bindings.find(deviceID: fixture.ids[0]) == nil)
    }

    @Test("Missing, malformed, wrong and revoked keys get 401 and nothing happens")
    func authentication() async throws {
        let fixture = try await IngestFixture(devices: 2)
        let revoked = try IngestAPIKeys.create(name: "old-scanner", registry: fixture.registry).key
        try fixture.registry.apiKeys.revoke(name: "old-scanner")
        let auditBefore = try fixture.registry.audit.entries().count
        try await fixture.withServer { client in
            let body = jsonBody(["qr": fixture.labels[0], "account": "alice", "home": "lab"])
            var wrong = Array(fixture.key)
            wrong[wrong.count - 1] = wrong.last == "A" ? "B" : "A"
            let attempts: [HTTPFields] = [
                [.contentType: "application/json"],
                [.authorization: "Basic \(fixture.key)"],
                [.authorization: "Bearer"],
                [.authorization: "Bearer not-a-key"],
                [.authorization: "Bearer \(String(wrong))"],
                [.authorization: "Bearer \(revoked)"],
            ]
            for headers in attempts {
                for (method, uri) in [
                    (HTTPRequest.Method.post, "/v1/bindings"), (.post, "/v1/homes/lab/pairing-tokens"),
                    (.delete, "/v1/bindings/\(fixture.ids[1])"), (.get, "/v1/bindings"), (.post, "/v1/noop"),
                    (.get, "/v1/no-such-route"),
                ] {
                    let reply = try await client.call(method, uri, headers: headers, body: body)
                    #expect(reply.status == 401, "\(headers) \(uri)")
                    #expect(reply.code == "UNAUTHENTICATED")
                    #expect(reply.headers[.wwwAuthenticate] != nil)
                    #expect(!reply.body.contains(fixture.key) && !reply.body.contains(revoked))
                }
            }
        }
        #expect(try fixture.registry.bindings.list().isEmpty)
        #expect(try fixture.registry.audit.entries().count == auditBefore)
        #expect(try fixture.registry.audit.ingestTrail().isEmpty)
        let keys = try fixture.registry.apiKeys.all()
        #expect(keys.map(\.name) == ["old-scanner", fixture.keyName])
        #expect(keys[0].revokedAt != nil && keys[1].revokedAt == nil)
    }

    @Test("Oversize, malformed, non-object and unknown-field bodies are refused before the store")
    func bodies() async throws {
        let fixture = try await IngestFixture(devices: 1)
        let auditBefore = try fixture.registry.audit.entries().count
        try await fixture.withServer { client in
            let headers = fixture.headers()
            let big = jsonBody(["qr": String(repeating: "x", count: 20_000), "account": "alice", "home": "lab"])
            let cases: [(String, String, Int, String)] = [
                ("/v1/bindings", big, 413, "PAYLOAD_TOO_LARGE"),
                ("/v1/noop", String(repeating: " ", count: 17_000), 413, "PAYLOAD_TOO_LARGE"),
                ("/v1/bindings", "{\"qr\":", 400, "INVALID_ARGUMENT"),
                ("/v1/bindings", "[1,2]", 400, "INVALID_ARGUMENT"),
                ("/v1/bindings", "", 400, "MISSING_FIELD"),
                ("/v1/bindings", #"{"qr":"x","account":"alice"}"#, 400, "MISSING_FIELD"),
                ("/v1/bindings", #"{"qr":1,"account":"alice","home":"lab"}"#, 400, "INVALID_ARGUMENT"),
                (
                    "/v1/bindings", #"{"qr":"\#(fixture.labels[0])","account":"alice","home":"lab","admin":true}"#,
                    400, "INVALID_ARGUMENT"
                ),
                ("/v1/qr/parse", #"{"qr":"x","extra":1}"#, 400, "INVALID_ARGUMENT"),
                // Optional, but a string when present (docs/ingest-api.yaml): null is a wrong type.
                (
                    "/v1/bindings", #"{"qr":"\#(fixture.labels[0])","account":"alice","home":"lab","token":null}"#, 400,
                    "INVALID_ARGUMENT"
                ),
                (
                    "/v1/bindings", jsonBody(["qr": String(repeating: "7", count: 5000), "account": "a", "home": "h"]),
                    400, "INVALID_QR"
                ),
            ]
            for (uri, body, status, code) in cases {
                let reply = try await client.call(.post, uri, headers: headers, body: body)
                #expect(reply.status == status, "\(uri) \(body.prefix(60)): \(reply.body)")
                #expect(reply.code == code, "\(reply.body)")
            }
            let unknownField = try await client.call(
                .post,
                "/v1/bindings",
                headers: headers,
                body: #"{"qr":"x","account":"alice","home":"lab","admin":true}"#
            )
            #expect(unknownField.message?.contains("\"admin\"") == true)
        }
        #expect(try fixture.registry.bindings.list().isEmpty)
        #expect(try fixture.registry.audit.entries().count == auditBefore)
    }

    @Test("Query items are form-decoded (+ is a space); malformed escapes and repeated items are 400")
    func queries() async throws {
        let fixture = try await IngestFixture(devices: 1)
        try fixture.registry.directory.addAccount(name: "ann lee", role: .owner)
        try await fixture.withServer { client in
            let headers = fixture.headers()
            for uri in ["/v1/bindings?account=ann+lee", "/v1/bindings?account=ann%20lee"] {
                let reply = try await client.call(.get, uri, headers: headers)
                #expect(reply.status == 200, "\(uri): \(reply.body)")
            }
            for uri in ["/v1/bindings?account=%E2%28", "/v1/bindings?account=%zz", "/v1/modems?limit=1&limit=2"] {
                let reply = try await client.call(.get, uri, headers: headers)
                #expect(reply.status == 400 && reply.code == "INVALID_ARGUMENT", "\(uri): \(reply.body)")
            }
        }
    }

    @Test("Names count Unicode code points, as the spec's maxLength does: 64 accepted, 65 refused")
    func nameLength() throws {
        // "é" as e + U+0301: 64 characters on screen would be 128 code points; 32 pairs are 64.
        let sixtyFour = String(repeating: "e\u{301}", count: 32)
        #expect(throws: Never.self) { try Registry.validateEntityName(sixtyFour, what: "home name") }
        #expect(throws: NBGWError.self) { try Registry.validateEntityName(sixtyFour + "e", what: "home name") }
        #expect(throws: NBGWError.self) { try Registry.validateEntityName("lab\u{3000}", what: "home name") }
        #expect(throws: Never.self) { try Registry.validateEntityName("l\u{3000}b", what: "home name") }
    }

    @Test("Unknown routes are 404 NOT_FOUND, wrong methods 405 with Allow (RFC 9110), both with the error body")
    func routing() async throws {
        let fixture = try await IngestFixture(devices: 0)
        try await fixture.withServer { client in
            let notFound = try await client.call(.get, "/v1/nothing", headers: fixture.headers())
            #expect(notFound.status == 404)
            #expect(notFound.code == "NOT_FOUND")
            #expect(notFound.headers[.allow] == nil)
            let method = try await client.call(.put, "/v1/bindings", headers: fixture.headers())
            #expect(method.status == 405)
            #expect(method.code == "METHOD_NOT_ALLOWED")
            #expect(method.headers[.allow] == "POST, GET")
            let options = try await client.call(.options, "/v1/devices/x1", headers: fixture.headers())
            #expect(options.status == 405)
            #expect(options.headers[.allow] == "GET")
        }
    }

    @Test("The per-key token bucket answers 429 with Retry-After and refills with the injected clock")
    func rateLimit() async throws {
        let fixture = try await IngestFixture(devices: 0)
        let other = try IngestAPIKeys.create(name: "scanner-2", registry: fixture.registry).key
        let clock = ManualClock()
        let configuration = fixture.configuration(
            rateLimit: .init(requestsPerSecond: 2, burst: 3),
            clock: { clock.now() }
        )
        try await fixture.withServer(configuration) { client in
            for _ in 0..<3 {
                #expect(try await client.call(.post, "/v1/noop", headers: fixture.headers()).status == 200)
            }
            let limited = try await client.call(.post, "/v1/noop", headers: fixture.headers())
            #expect(limited.status == 429)
            #expect(limited.code == "RATE_LIMITED")
            #expect(limited.headers[.retryAfter] == "1")
            // Another key has its own bucket.
            #expect(try await client.call(.post, "/v1/noop", headers: fixture.headers(key: other)).status == 200)
            clock.advance(.milliseconds(500))
            #expect(try await client.call(.post, "/v1/noop", headers: fixture.headers()).status == 200)
            #expect(try await client.call(.post, "/v1/noop", headers: fixture.headers()).status == 429)
        }
    }

    @Test("Every ErrorCode maps to its HTTP status; the HTTP-only codes are ErrorCode cases with their own exit codes")
    func mapping() {
        for code in ErrorCode.allCases {
            let error = IngestError(NBGWError(code, "m"))
            #expect(error.status == code.httpStatus)
            #expect(error.code == code.rawValue)
        }
        #expect(Set(IngestError.allCodes).count == IngestError.allCodes.count)
        let httpOnly: [(ErrorCode, Int, Int32)] = [
            (.unauthenticated, 401, 60), (.notFound, 404, 45), (.methodNotAllowed, 405, 46),
            (.payloadTooLarge, 413, 44), (.rateLimited, 429, 61),
        ]
        for (code, status, exit) in httpOnly {
            #expect(code.httpStatus == status, "\(code)")
            #expect(code.exitCode == exit, "\(code)")
        }
    }
}
