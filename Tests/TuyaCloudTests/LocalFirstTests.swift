import Cloud
import CloudEmulatorKit
import DeviceIdentity
import Foundation
import Pairing
import Provisioning
import Registry
import TestClocks
import Testing
import TuyaCloud

#if canImport(Glibc)
import Glibc
#endif

/// Issue 21 §8: a bind commits locally and answers within the cloud wait whatever the cloud does;
/// labels this gateway knows resolve from its store; only an unseen label needs the cloud.
@Suite("Local first: binds answer within the cloud wait, labels resolve from the store")
struct LocalFirstTests {
    /// A loopback TCP port that takes connections into its backlog and never answers: a cloud
    /// that hangs (the request is sent, no byte comes back).
    final class SilentServer: Sendable {
        let descriptor: Int32
        let port: Int

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0, listen(descriptor, 16) == 0 else {
                close(descriptor)
                throw POSIXError(.EADDRINUSE)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(descriptor) }
    }

    static func bindAlice(_ service: BindingService, _ qr: String) async throws -> CloudBindOutcome {
        try await service.bind(qr: qr, account: "alice", home: "lab", source: .cli)
    }

    @Test(
        "With a cloud that never answers, a bind by label commits locally and answers queued when the wait is over",
        .timeLimit(.minutes(1))
    )
    func hangingCloud() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let registration = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA)))
            let silent = try SilentServer()
            var configuration = try CloudConfiguration(
                baseURL: "http://127.0.0.1:\(silent.port)",
                credentials: CloudHarness.credentials,
                // Why a minute: only the budget (on the manual clock) may end this call, never a
                // real-time timeout on a slow machine.
                connectTimeout: .seconds(60),
                requestTimeout: .seconds(60)
            )
            configuration.labelBase = h.cloud.configuration.labelBase
            let hanging = HTTPCloud(
                configuration: configuration,
                transport: AsyncHTTPClientTransport(connectTimeout: .seconds(60)),
                clock: h.sleeps,
                wallClock: h.wallClock
            )
            let budget = TestClocks.ManualClock()
            let service = BindingService(cloud: hanging, registry: h.registry, clock: budget, cloudWait: .seconds(2))

            let bind = Task { try await Self.bindAlice(service, registration.labelPayload) }
            // The bind is committed and its send is under way once the wait's timer is set.
            await budget.waitForSleepers(1)
            #expect(try h.registry.bindings.find(deviceID: registration.device.deviceID)?.account == "alice")
            budget.advance(by: .seconds(2))
            let result = try await bind.value
            await hanging.shutdown()

            #expect(result.outcome.status == .bound)
            let sync = try #require(result.sync)
            #expect(sync.state == .queued)
            #expect(sync.message?.contains("did not answer within 2 s") == true)
            // Pending again at once (not leased for five minutes), so the next drain sends it.
            let outboxID = try #require(sync.outboxID)
            let row = try #require(try h.registry.outbox.entry(id: outboxID))
            // The store keeps milliseconds (rounded to the nearest), so "due now" is compared at that precision.
            let milliseconds = { (date: Date) in Int64((date.timeIntervalSince1970 * 1000).rounded()) }
            #expect(row.state == .pending && milliseconds(row.nextAttemptAt) <= milliseconds(h.wallClock.now()))

            let report = await h.cloud.drainer().drain()
            #expect(report.sent == 1 && report.isComplete)
            #expect(try h.emulator.stats().effects("bind") == 1)
        }
    }

    @Test("With the cloud unreachable, a label this gateway registered binds from the store: bound, queued")
    func unreachableCloudKnownLabel() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let registration = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA)))
            h.emulator.faults.set(EmulatorFaults(dropConnections: 1000))
            let result = try await h.cloud.bindings.bind(
                qr: registration.labelPayload,
                account: "alice",
                home: "lab",
                source: .cli
            )
            #expect(result.outcome.status == .bound)
            #expect(result.outcome.binding.deviceID == registration.device.deviceID)
            #expect(result.sync?.state == .queued)
            #expect(try h.emulator.stats().effects("bind") == 0)

            // The cloud is back; the row's next try is after its backoff.
            h.emulator.faults.set(EmulatorFaults())
            h.wallClock.advance(by: 3600)
            let report = await h.cloud.drainer().drain()
            #expect(report.sent == 1 && report.isComplete)
            #expect(try h.emulator.stats().effects("bind") == 1)
        }
    }

    @Test("A label the store has never seen needs the cloud; with the cloud unreachable the error says so")
    func unseenLabelNeedsTheCloud() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            h.emulator.faults.set(EmulatorFaults(dropConnections: 1000))
            let error = await errorOf {
                _ = try await h.cloud.bindings.bind(
                    qr: h.cloud.configuration.labelBase + "NEVERSEEN123",
                    account: "alice",
                    home: "lab",
                    source: .cli
                )
            }
            #expect(error?.code == .timeout)
            #expect(error?.message.contains("is not in this gateway's store") == true)
            #expect(try h.registry.bindings.list().isEmpty)
        }
    }

    @Test("A label another gateway registered resolves through the cloud and binds here")
    func labelSeenOnlyByTheCloud() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let other = try h.makeCloud(
                registry: try Registry(path: h.directory.appendingPathComponent("other.sqlite").path)
            )
            let registration = try await other.register(ModuleIdentity(imei: try IMEI(Modules.imeiB)))
            await other.shutdown()
            // This store has never seen the module: its label goes to the cloud's parse step.
            #expect(try h.registry.directory.device(labelCode: registration.device.labelCode) == nil)
            let resolved = try await h.cloud.resolve(try QRPayloadParser.parse(registration.labelPayload))
            guard case .nbBind(let nb) = resolved else {
                Issue.record("expected an NB bind, got \(resolved)")
                return
            }
            #expect(nb.deviceID.rawValue == registration.device.deviceID)
        }
    }
}
