import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import Pairing
import Provisioning
import Registry
import Testing

/// A clock that jumps forward by `step` every time it is read: a slow cloud, without sleeping.
final class SteppingClock: Clock, @unchecked Sendable {
    typealias Duration = Swift.Duration
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    let step: Duration

    init(step: Duration) { self.step = step }

    var now: Instant {
        lock.withLock {
            defer { current = current.advanced(by: step) }
            return current
        }
    }

    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        lock.withLock { current = max(current, deadline) }
    }
}

@Suite("Provisioning: one code path from QR to binding")
struct BindingServiceTests {
    final class Store: Sendable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-prov-\(UUID().uuidString)")
        let registry: Registry
        let cloud: EmbeddedCloud

        init() throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            registry = try Registry(path: directory.appendingPathComponent("s.sqlite").path)
            cloud = EmbeddedCloud()
            try registry.directory.addAccount(name: "alice", role: .owner)
            try registry.directory.addHome(name: "lab", owner: "alice")
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    func code(_ body: () async throws -> Void) async -> ErrorCode? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? NBGWError)?.code
        }
    }

    @Test("A label issued by the embedded cloud binds; the same QR as JSON reaches the same device")
    func labelAndJSONBindTheSameDevice() async throws {
        let store = try Store()
        let registration = try await DeviceRegistrar(cloud: store.cloud, registry: store.registry).register(
            imei: "490154203237518",
            model: "BC95"
        )
        #expect(registration.created)
        let service = BindingService(cloud: store.cloud, registry: store.registry)
        let outcome = try await service.bind(
            qr: registration.labelPayload,
            account: "alice",
            home: "lab",
            source: .http
        ).outcome
        #expect(outcome.status == .bound)
        #expect(outcome.binding.deviceID == registration.device.deviceID)
        #expect(outcome.binding.source == .http)
        let json =
            "{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"\(registration.device.deviceID)\"}}"
        #expect(
            try await service.bind(qr: json, account: "alice", home: "lab", source: .cli).outcome.status == .unchanged
        )
    }

    @Test("Labels of another issuer, unknown label codes and Matter codes are refused with their codes")
    func refusals() async throws {
        let store = try Store()
        let service = BindingService(cloud: store.cloud, registry: store.registry)
        let foreign = await code {
            _ = try await service.bind(
                qr: "https://other.example/d/ABCDEFGH",
                account: "alice",
                home: "lab",
                source: .cli
            )
        }
        #expect(foreign == .qrProtocolNotRecognized)
        let unknown = await code {
            _ = try await service.bind(
                qr: EmbeddedCloud.defaultLabelBase + "ABCDEFGH",
                account: "alice",
                home: "lab",
                source: .cli
            )
        }
        #expect(unknown == .unknownDevice)
        let matter = await code {
            _ = try await service.bind(qr: "MT:-24J042C00KA0648G00", account: "alice", home: "lab", source: .cli)
        }
        #expect(matter == .notNBDevice)
    }

    @Test("When resolving the QR uses up the activation budget, the bind fails with TIMEOUT and binds nothing")
    func activationBudget() async throws {
        let store = try Store()
        let registration = try await DeviceRegistrar(cloud: store.cloud, registry: store.registry).register(
            imei: "490154203237518"
        )
        let slow = BindingService(
            cloud: store.cloud,
            registry: store.registry,
            clock: SteppingClock(step: .seconds(121))
        )
        let result = await code {
            _ = try await slow.bind(qr: registration.labelPayload, account: "alice", home: "lab", source: .cli)
        }
        #expect(result == .timeout)
        #expect(try store.registry.bindings.list().isEmpty)
        let patient = BindingService(
            cloud: store.cloud,
            registry: store.registry,
            clock: SteppingClock(step: .seconds(59))
        )
        #expect(
            try await patient.bind(qr: registration.labelPayload, account: "alice", home: "lab", source: .cli).outcome
                .status == .bound
        )
    }

    @Test("The registrar validates identities before the cloud sees them")
    func registrarValidates() async throws {
        let store = try Store()
        let registrar = DeviceRegistrar(cloud: store.cloud, registry: store.registry)
        #expect(await code { _ = try await registrar.register(imei: "12345") } == .invalidArgument)
        #expect(await code { _ = try await registrar.register(imei: "490154203237518", imsi: "x") } == .invalidArgument)
        #expect(
            await code { _ = try await registrar.register(imei: "490154203237518", model: "BC66\u{1B}") }
                == .invalidArgument
        )
        #expect(try store.registry.directory.devices().isEmpty)
    }

    @Test("Minted device ids and label codes are unique and well-formed")
    func minting() async throws {
        let store = try Store()
        var ids = Set<String>()
        var labels = Set<String>()
        for serial in 0..<50 {
            let payload = String(format: "35693803%06d", serial)
            let imei = payload + String(Luhn.checkDigit(for: payload))
            let registration = try await DeviceRegistrar(cloud: store.cloud, registry: store.registry).register(
                imei: imei
            )
            ids.insert(registration.device.deviceID)
            labels.insert(registration.labelPayload)
            #expect(registration.device.deviceID.count == 20)
            #expect(registration.device.deviceID.hasPrefix("nb"))
        }
        #expect(ids.count == 50)
        #expect(labels.count == 50)
    }
}
