import Cloud
import CloudEmulatorKit
import DeviceIdentity
import Foundation
import Provisioning
import Registry
import Testing
import TuyaCloud

/// Each fault the emulator injects, and what nbgw makes of it. Retry pauses go to a manual clock
/// (recorded, not waited); only the latency faults really wait, briefly.
@Suite("Injected faults and what each produces")
struct EmulatorFaultTests {
    static func identity(_ imei: String = Modules.imeiA) throws -> ModuleIdentity {
        ModuleIdentity(imei: try IMEI(imei), productID: "p-nb-sensor")
    }

    @Test("Latency under the request timeout: the call just takes longer")
    func latencyWithinTimeout() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(latencyMs: 150)) { h async throws in
            let started = ContinuousClock.now
            _ = try await h.cloud.register(try Self.identity())
            #expect(ContinuousClock.now - started >= .milliseconds(150))
            #expect(h.sleeps.sleeps.isEmpty)
        }
    }

    @Test("Latency past the request timeout: a timeout, retried, then TIMEOUT with the registration queued")
    func latencyPastTimeout() async throws {
        try await CloudHarness.with(
            faults: EmulatorFaults(latencyMs: 400),
            cloudSetup: { configuration in
                configuration.requestTimeout = .milliseconds(100)
                configuration.retryPolicy = RetryPolicy(maxAttempts: 2)
            }
        ) { h async throws in
            let error = await errorOf { _ = try await h.cloud.register(try Self.identity()) }
            #expect(error?.code == .timeout)
            #expect(error?.message.contains("timed out") == true)
            #expect(error?.message.contains("queued") == true)
            #expect(h.sleeps.sleeps.count == 1)
            #expect(try h.registry.outbox.counts()[.pending] == 1)
        }
    }

    @Test("HTTP 503 twice: retried with backoff, then success")
    func serverErrorsRecover() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(serverErrors: 2)) { h async throws in
            let registration = try await h.cloud.register(try Self.identity())
            #expect(registration.created)
            #expect(h.sleeps.sleeps.count == 2)
            #expect(try h.emulator.stats().faultsFired["server_errors"] == 2)
        }
    }

    @Test("HTTP 503 on every attempt: TIMEOUT naming HTTP 503, nothing registered, work queued")
    func serverErrorsExhaust() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(serverErrors: 100)) { h async throws in
            let error = await errorOf { _ = try await h.cloud.register(try Self.identity()) }
            #expect(error?.code == .timeout)
            #expect(error?.message.contains("HTTP 503") == true)
            #expect(error?.message.contains("5 attempts") == true)
            #expect(try h.registry.directory.device(imei: Modules.imeiA) == nil)
            #expect(try h.emulator.stats().effects("register") == 0)
        }
    }

    @Test("HTTP 429 with Retry-After: the pause is at least what the cloud asked for")
    func rateLimited() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(rateLimits: 1, retryAfterSeconds: 2)) { h async throws in
            _ = try await h.cloud.register(try Self.identity())
            #expect(h.sleeps.sleeps == [.seconds(2)])
        }
    }

    @Test("A dropped connection before processing: retried, one effect")
    func droppedConnection() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(dropConnections: 1)) { h async throws in
            _ = try await h.cloud.register(try Self.identity())
            let stats = try h.emulator.stats()
            #expect(stats.faultsFired["drop_connections"] == 1)
            #expect(stats.effects("register") == 1)
            #expect(h.sleeps.sleeps.count == 1)
        }
    }

    @Test("A connection dropped after the cloud acted: the retry is answered from the idempotency key, one effect")
    func droppedAfterProcessing() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(dropAfterProcessing: 1)) { h async throws in
            let registration = try await h.cloud.register(try Self.identity())
            let stats = try h.emulator.stats()
            #expect(stats.faultsFired["drop_after_processing"] == 1)
            #expect(stats.effects("register") == 1)
            #expect(stats.replays == 1)
            #expect(try h.registry.directory.device(imei: Modules.imeiA)?.deviceID == registration.device.deviceID)
        }
    }

    @Test("A skewed clock: code 1013 at once, blamed on clock skew or the data center, nothing retried")
    func skewedClock() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(clockSkewMs: 10 * 60 * 1000)) { h async throws in
            let error = await errorOf { _ = try await h.cloud.register(try Self.identity()) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("clock") == true)
            #expect(error?.message.contains("data center") == true)
            #expect(try h.emulator.stats().requests == 1)
            #expect(h.sleeps.sleeps.isEmpty)
        }
    }

    @Test("A skew inside the allowed window is accepted")
    func smallSkew() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(clockSkewMs: 60 * 1000)) { h async throws in
            _ = try await h.cloud.register(try Self.identity())
        }
    }

    @Test("An expired token (1010): a new grant, the call resent, no pause")
    func expiredToken() async throws {
        try await CloudHarness.with(faults: EmulatorFaults(expiredTokens: 1)) { h async throws in
            _ = try await h.cloud.register(try Self.identity())
            let stats = try h.emulator.stats()
            #expect(stats.effects("token_grant") == 2)
            #expect(stats.effects("register") == 1)
            #expect(h.sleeps.sleeps.isEmpty)
        }
    }

    @Test("Every issued token expired at once: the next call re-authenticates")
    func expireAllTokens() async throws {
        try await CloudHarness.with { h async throws in
            _ = try await h.cloud.register(try Self.identity())
            try h.emulator.store.expireAllTokens()
            _ = try await h.cloud.register(try Self.identity(Modules.imeiB))
            #expect(try h.emulator.stats().effects("token_grant") == 2)
        }
    }

    @Test("Busy codes 1110, 1111 and 1199: retried, then success", arguments: [1110, 1111, 1199])
    func busy(code: Int) async throws {
        try await CloudHarness.with(faults: EmulatorFaults(busyResponses: 2, busyCode: code)) { h async throws in
            _ = try await h.cloud.register(try Self.identity())
            #expect(h.sleeps.sleeps.count == 2)
            #expect(try h.emulator.stats().faultsFired["busy_responses"] == 2)
        }
    }

    @Test("A cloud that is down: the local bind stands, the cloud bind is queued, then drained")
    func cloudDown() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let deviceID = try await h.cloud.register(try Self.identity()).device.deviceID
            h.emulator.faults.set(EmulatorFaults(serverErrors: 1000))
            let result = try await h.cloud.bind(
                BindCommand(deviceID: try DeviceID(deviceID), account: "alice", home: "lab", source: .cli)
            )
            #expect(result.outcome.status == .bound)
            #expect(result.sync.state == .queued)
            #expect(result.sync.message?.contains("HTTP 503") == true)
            #expect(try h.registry.bindings.find(deviceID: deviceID) != nil)

            h.emulator.faults.set(EmulatorFaults())
            h.wallClock.advance(by: 3600)
            let report = await OutboxDrainer(cloud: h.cloud).drain()
            #expect(report.sent == 1)
            #expect(report.isComplete)
            #expect(try await h.cloud.cloudBindings().map(\.deviceID) == [deviceID])
        }
    }
}
