import Cloud
import DeviceIdentity
import KiiCloud
import KiiEmulatorKit
import Provisioning
import Registry
import Testing

/// Kii takes no idempotency keys; the outbox's exactly-once holds because each operation is
/// idempotent of itself. These tests send the same work twice, as a resend after a crash or a lost
/// answer would, and count Kii's effects.
@Suite("Kii: each operation is idempotent of itself, so a resend has one effect")
struct KiiIdempotencyTests {
    static func attempt() -> CloudAttempt {
        CloudAttempt(idempotencyKey: IdempotencyKey.make(), patience: .background)
    }

    @Test("Onboarding the same IMEI with the same password again answers the same thing, with no new effect")
    func reonboarding() async throws {
        try await KiiHarness.with { h async throws in
            let identity = ModuleIdentity(imei: try IMEI(Modules.imeiA))
            let secret = try h.registry.directory.moduleSecret(imei: Modules.imeiA)
            let module = CloudModule(identity: identity, secret: secret)
            let first = try await h.cloud.register(module, attempt: Self.attempt())
            let second = try await h.cloud.register(module, attempt: Self.attempt())
            #expect(first.deviceID == second.deviceID)
            #expect(first.credential == second.credential)
            #expect(try h.emulator.stats().effects("onboard") == 1)

            // Through the registrar (the outbox's register row), twice: the same device.
            let one = try await h.registrar.register(identity)
            let two = try await h.registrar.register(identity)
            #expect(one.device.deviceID == first.deviceID.rawValue && two.device.deviceID == one.device.deviceID)
            #expect(try h.emulator.stats().effects("onboard") == 1)
        }
    }

    @Test("Adding an owner twice, removing it twice: one effect each, the repeats answer done")
    func ownershipRepeats() async throws {
        try await KiiHarness.with { h async throws in
            let deviceID = try await h.registrar.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))).device.deviceID
            let token = try h.registry.directory.moduleCredential(deviceID: deviceID)
            let bind = CloudBindingChange(
                action: .bind,
                deviceID: deviceID,
                account: "alice",
                home: "lab",
                moduleCredential: token
            )
            #expect(try await h.cloud.send(bind, attempt: Self.attempt()).contains(#""status":"owner-added""#))
            #expect(try await h.cloud.send(bind, attempt: Self.attempt()).contains(#""status":"already-owner""#))
            var unbind = bind
            unbind.action = .unbind
            #expect(try await h.cloud.send(unbind, attempt: Self.attempt()).contains(#""status":"owner-removed""#))
            #expect(try await h.cloud.send(unbind, attempt: Self.attempt()).contains(#""status":"not-owner""#))
            let stats = try h.emulator.stats()
            #expect(stats.effects("owner_add") == 1 && stats.effects("owner_remove") == 1)

            // An unbind whose account is unknown removes every user owner but the gateway's own.
            _ = try await h.cloud.send(bind, attempt: Self.attempt())
            var anonymous = unbind
            anonymous.account = nil
            _ = try await h.cloud.send(anonymous, attempt: Self.attempt())
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName])
        }
    }

    @Test("An answer lost after Kii acted: the bind is resent, Kii answers 'already an owner', one effect")
    func droppedAnswer() async throws {
        try await KiiHarness.with { h async throws in
            try h.seedAccounts()
            let registration = try await h.registrar.register(ModuleIdentity(imei: try IMEI(Modules.imeiA)))
            h.emulator.faults.set(KiiEmulatorFaults(dropAfterProcessing: 1))
            let result = try await h.bindings.bind(
                qr: registration.labelPayload,
                account: "alice",
                home: "lab",
                source: .cli
            )
            #expect(result.sync?.state == .synced)
            let stats = try h.emulator.stats()
            #expect(stats.faultsFired["drop_after_processing"] == 1)
            #expect(stats.effects("owner_add") == 1)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName, "alice"])
        }
    }
}
