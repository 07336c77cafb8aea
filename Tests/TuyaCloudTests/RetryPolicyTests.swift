import Cloud
import Foundation
import Provisioning
import Registry
import TestClocks
import Testing
import TuyaCloud

@Suite("Retries, backoff and tokens, on a scripted transport and a manual clock")
struct RetryPolicyTests {
    /// A cloud over `transport` with a throwaway store; sleeps go to the returned manual clock.
    final class Rig: Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-retry-\(UUID().uuidString)")
        let registry: Registry
        let transport: ScriptedTransport
        let sleeps = ManualClock()
        let wallClock = ManualWallClock()
        let cloud: GatewayCloud

        init(_ transport: ScriptedTransport, policy: RetryPolicy = .standard) throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            registry = try Registry(path: directory.appendingPathComponent("s.sqlite").path)
            self.transport = transport
            var configuration = try CloudConfiguration(
                baseURL: "https://openapi.tuyaeu.com",
                credentials: CloudHarness.credentials
            )
            configuration.retryPolicy = policy
            cloud = HTTPCloud.make(configuration, registry, sleeps, wallClock, transport: transport)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    static let parseResult = #"{"action_name":"device_net_conn_bind_nb","action_data":{"id":"nb0123456789abcdefgh"}}"#

    @Test("Delays grow exponentially, are capped, and keep half of the cap fixed")
    func delays() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
        #expect(policy.delay(afterAttempt: 1, jitter: 0) == .milliseconds(50))
        #expect(policy.delay(afterAttempt: 1, jitter: 1) == .milliseconds(100))
        #expect(policy.delay(afterAttempt: 3, jitter: 0) == .milliseconds(200))
        #expect(policy.delay(afterAttempt: 3, jitter: 0.5) == .milliseconds(300))
        #expect(policy.delay(afterAttempt: 20, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterAttempt: 1, jitter: 0, retryAfter: .seconds(3)) == .seconds(3))
        #expect(policy.delay(afterAttempt: 1, jitter: 0, retryAfter: .seconds(600)) == policy.maximumRetryAfter)
    }

    @Test("5xx and 429 are retried with backoff, honouring Retry-After, then succeed")
    func statusRetries() async throws {
        let rig = try Rig(
            ScriptedTransport([
                .respond(503, [:], "<html>busy</html>"),
                .respond(429, ["retry-after": "3"], #"{"success":false,"code":1199,"msg":"slow down"}"#),
                ScriptedTransport.success(Self.parseResult),
            ])
        )
        let result = try await rig.cloud.parseQR("https://label.nbgw-cloud.invalid/d/ABCD")
        #expect(result.actionData.id == "nb0123456789abcdefgh")
        #expect(rig.transport.businessRequests.count == 3)
        // Attempt 1 failed: 250 ms cap, jitter 0.5 → 188 ms; attempt 2: Retry-After 3 s wins.
        #expect(rig.sleeps.sleeps == [.milliseconds(188), .seconds(3)])
    }

    @Test("Codes 1110, 1111, 1199 and transport failures are retried")
    func retryableCodes() async throws {
        let rig = try Rig(
            ScriptedTransport([
                ScriptedTransport.failure(code: 1110),
                ScriptedTransport.failure(code: 1111),
                .fail(CloudTransportError(.connection, "connection reset by peer")),
                ScriptedTransport.failure(code: 1199),
                ScriptedTransport.success(Self.parseResult),
            ])
        )
        _ = try await rig.cloud.parseQR("x")
        #expect(rig.transport.businessRequests.count == 5)
        #expect(rig.sleeps.sleeps.count == 4)
    }

    @Test("1004, 1013, 1001 and 1005 fail at once, with the reason", arguments: [1004, 1013, 1001, 1005])
    func noRetry(code: Int) async throws {
        let rig = try Rig(
            ScriptedTransport([ScriptedTransport.failure(code: code), ScriptedTransport.success(Self.parseResult)])
        )
        let error = await errorOf { _ = try await rig.cloud.parseQR("x") }
        #expect(error?.code == .invalidArgument)
        #expect(rig.transport.businessRequests.count == 1)
        #expect(rig.sleeps.sleeps.isEmpty)
        if code == 1013 {
            #expect(error?.message.contains("clock") == true)
        }
    }

    @Test("After the last attempt the error says how many were made")
    func exhausted() async throws {
        let rig = try Rig(
            ScriptedTransport(Array(repeating: .fail(CloudTransportError(.timedOut, "deadline exceeded")), count: 3)),
            policy: RetryPolicy(maxAttempts: 3)
        )
        let error = await errorOf { _ = try await rig.cloud.parseQR("x") }
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("3 attempts") == true)
        #expect(error?.message.contains("timed out") == true)
        #expect(rig.sleeps.sleeps.count == 2)
    }

    @Test("1010 and 1011 fetch a new token once and resend, without a pause", arguments: [1010, 1011])
    func reauthentication(code: Int) async throws {
        let rig = try Rig(
            ScriptedTransport([ScriptedTransport.failure(code: code), ScriptedTransport.success(Self.parseResult)])
        )
        _ = try await rig.cloud.parseQR("x")
        let business = rig.transport.businessRequests
        #expect(business.count == 2)
        #expect(business[0].header("access_token") != business[1].header("access_token"))
        #expect(rig.transport.tokenRequests.count == 2)
        #expect(rig.transport.tokenRequests.allSatisfy { $0.url.hasSuffix("/v1.0/token?grant_type=1") })
        #expect(rig.sleeps.sleeps.isEmpty)
    }

    @Test("A token that keeps being refused fails after one re-authentication")
    func reauthenticationOnce() async throws {
        let rig = try Rig(
            ScriptedTransport([ScriptedTransport.failure(code: 1010), ScriptedTransport.failure(code: 1010)])
        )
        let error = await errorOf { _ = try await rig.cloud.parseQR("x") }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("even after") == true)
        #expect(rig.transport.businessRequests.count == 2)
    }

    @Test("The token is refreshed with the refresh token shortly before it expires")
    func refreshBeforeExpiry() async throws {
        let rig = try Rig(
            ScriptedTransport([
                ScriptedTransport.success(Self.parseResult), ScriptedTransport.success(Self.parseResult),
            ])
        )
        _ = try await rig.cloud.parseQR("x")
        // 7200 s lifetime, 60 s margin: at 7150 s the token is refreshed, not re-granted.
        rig.wallClock.advance(by: 7150)
        _ = try await rig.cloud.parseQR("x")
        let tokens = rig.transport.tokenRequests.map(\.url)
        #expect(tokens.count == 2)
        #expect(tokens[1].hasSuffix("/v1.0/token/r0000000000000000000000000000001"))
        // Token calls sign without access_token.
        #expect(rig.transport.tokenRequests.allSatisfy { $0.header("access_token") == nil })
        #expect(rig.transport.businessRequests[1].header("access_token") == "00000000000000000000000000000002")
    }

    @Test("A refused refresh token falls back to a new grant")
    func refreshRefused() async throws {
        let rig = try Rig(
            ScriptedTransport(
                [ScriptedTransport.success(Self.parseResult), ScriptedTransport.success(Self.parseResult)],
                tokenScript: [
                    ScriptedTransport.success(
                        #"{"access_token":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","expire_time":7200,"#
                            + #""refresh_token":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","uid":"u"}"#
                    ),
                    ScriptedTransport.failure(code: 1012, msg: "refresh token already used"),
                ]
            )
        )
        _ = try await rig.cloud.parseQR("x")
        rig.wallClock.advance(by: 7300)
        _ = try await rig.cloud.parseQR("x")
        let tokens = rig.transport.tokenRequests.map(\.url)
        #expect(tokens.count == 3)
        #expect(tokens[1].hasSuffix("/v1.0/token/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"))
        #expect(tokens[2].hasSuffix("/v1.0/token?grant_type=1"))
    }

    @Test("Concurrent calls share one token fetch")
    func singleFlight() async throws {
        let rig = try Rig(ScriptedTransport(Array(repeating: ScriptedTransport.success(Self.parseResult), count: 8)))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { _ = try await rig.cloud.parseQR("x") }
            }
            try await group.waitForAll()
        }
        #expect(rig.transport.tokenRequests.count == 1)
        #expect(rig.transport.businessRequests.count == 8)
    }

    @Test("Every state-changing call carries a signed idempotency key, the same on each retry")
    func idempotencyKeyOnRetries() async throws {
        let rig = try Rig(
            ScriptedTransport([
                .fail(CloudTransportError(.connection, "reset")),
                ScriptedTransport.success(#"{"device_id":"nb1","status":"unbound"}"#),
            ])
        )
        _ = try await rig.cloud.unbindInCloud(deviceID: "nb1")
        let requests = rig.transport.businessRequests
        #expect(requests.count == 2)
        let keys = requests.compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 2 && keys[0] == keys[1])
        #expect(requests.allSatisfy { $0.header("Signature-Headers") == "Idempotency-Key" })
        #expect(requests[0].header("nonce") != requests[1].header("nonce"))
    }
}
