import Cloud
import DeviceIdentity
import Foundation
import KiiCloud
import KiiEmulatorKit
import Provisioning
import Registry
import Testing

@Suite("Kii Thing-IF end to end: register, bind, unbind, sync check, through Provisioning over real HTTP")
struct KiiEndToEndTests {
    static let identity = try! ModuleIdentity(
        imei: IMEI(Modules.imeiA),
        imsi: IMSI("460001234567890"),
        iccid: ICCID("89860012345678901234"),
        manufacturer: "Quectel",
        model: "BC660K-GL (R1.1)",
        firmware: "BC660KGLAAR01A05"
    )

    @Test("Registering onboards the thing by owner: thing id, token, label and properties")
    func registerOnboards() async throws {
        try await KiiHarness.with { h async throws in
            let registration = try await h.registrar.register(Self.identity)
            let thing = try #require(try h.emulator.store.thing(vendorThingID: Modules.imeiA))
            #expect(registration.device.deviceID == thing.id)
            #expect(thing.id.hasPrefix("th."))
            #expect(thing.thingType == "BC660K-GL--R1.1-")
            #expect(thing.properties.contains(#""imsi":"460001234567890""#))
            #expect(thing.properties.contains(#""iccid":"89860012345678901234""#))
            #expect(thing.properties.contains(#""_firmwareVersion":"BC660KGLAAR01A05""#))
            #expect(registration.labelPayload == KiiConfiguration.defaultLabelBase + Modules.imeiA)
            #expect(registration.device.labelCode == Modules.imeiA)
            // The thing's access token is kept in the store, like a secret.
            let credential = try #require(try h.registry.directory.moduleCredential(deviceID: thing.id))
            #expect(credential.count >= 40)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName])
        }
    }

    @Test("register → bind by label → unbind: each synced, Kii's owners follow, the sync check finds nothing")
    func wholeFlow() async throws {
        try await KiiHarness.with { h async throws in
            try h.seedAccounts()
            let registration = try await h.registrar.register(Self.identity)
            let deviceID = registration.device.deviceID

            let bound = try await h.bindLabel(registration)
            #expect(bound.outcome.status == .bound)
            #expect(bound.sync?.state == .synced)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName, "alice"])
            let check = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud)
            #expect(check.isConsistent, "\(check.divergences)")
            #expect(check.cloudDevices == 1 && check.cloudBindings == 1)

            let unbound = try await h.bindings.unbind(deviceID: deviceID, source: .cli)
            #expect(unbound.sync?.state == .synced)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName])
            let after = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud)
            #expect(after.isConsistent, "\(after.divergences)")
            #expect(after.cloudBindings == 0)

            let stats = try h.emulator.stats()
            #expect(stats.effects("onboard") == 1)
            #expect(stats.effects("owner_add") == 1)
            #expect(stats.effects("owner_remove") == 1)
        }
    }

    @Test("An app that wants the thing's password to add an owner: bind and unbind sync with the store's secret")
    func ownerPassword() async throws {
        try await KiiHarness.with(requireThingPassword: true) { h async throws in
            try h.seedAccounts()
            let registration = try await h.registrar.register(Self.identity)
            let bound = try await h.bindLabel(registration)
            #expect(bound.sync?.state == .synced, "\(String(describing: bound.sync))")
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName, "alice"])
            let unbound = try await h.bindings.unbind(deviceID: registration.device.deviceID, source: .cli)
            #expect(unbound.sync?.state == .synced)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName])
        }
    }

    @Test("The sync check sees a binding missing in Kii, and an owner Kii has that the store does not")
    func syncCheckDivergences() async throws {
        try await KiiHarness.with { h async throws in
            try h.seedAccounts()
            let deviceID = try await h.registrar.register(Self.identity).device.deviceID
            // Bound here, never sent (a process that died after its local commit), then sent
            // by hand to the other account: Kii and the store disagree.
            _ = try h.registry.bindings.bind(
                BindCommand(deviceID: try DeviceID(deviceID), account: "alice", home: "lab", source: .cli),
                queueForCloud: false
            )
            let missing = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud)
            #expect(missing.divergences.map(\.kind) == [.bindingMissingInCloud])

            let token = try #require(try h.registry.directory.moduleCredential(deviceID: deviceID))
            _ = try await h.cloud.send(
                CloudBindingChange(
                    action: .bind,
                    deviceID: deviceID,
                    account: "bob",
                    home: nil,
                    moduleCredential: token
                ),
                attempt: CloudAttempt(idempotencyKey: IdempotencyKey.make(), patience: .background)
            )
            let differs = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud)
            #expect(differs.divergences.map(\.kind) == [.bindingDiffers])
            #expect(differs.divergences.first?.cloud == "bob")
        }
    }

    @Test("A module the store knew before Kii keeps its device id; bind, unbind and the sync check reach Kii's thing")
    func knownBeforeKii() async throws {
        try await KiiHarness.with { h async throws in
            try h.seedAccounts()
            _ = try #require(
                try h.registry.directory.recordRegistration(
                    Self.identity,
                    deviceID: try DeviceID("nblocalonly000000000"),
                    labelCode: "LOCALONLY001",
                    minted: true
                )
            )
            let before = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud)
            #expect(before.divergences.map(\.kind) == [.deviceMissingInCloud])
            // Kii assigns thing ids and cannot take the one the store holds: the module keeps its
            // id, and the adapter keeps Kii's beside the thing's token.
            let registration = try await h.registrar.register(Self.identity)
            #expect(registration.device.deviceID == "nblocalonly000000000")
            let thing = try #require(try h.emulator.store.thing(vendorThingID: Modules.imeiA))
            #expect(thing.id != "nblocalonly000000000" && thing.id.hasPrefix("th."))
            let registered = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud)
            #expect(registered.isConsistent, "\(registered.divergences)")

            let bound = try await h.bindLabel(registration)
            #expect(bound.sync?.state == .synced, "\(String(describing: bound.sync))")
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName, "alice"])
            let check = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud)
            #expect(check.isConsistent, "\(check.divergences)")
            #expect(check.cloudBindings == 1)

            let unbound = try await h.bindings.unbind(deviceID: "nblocalonly000000000", source: .cli)
            #expect(unbound.sync?.state == .synced)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName])
            // Registering again changes nothing: the same id, the same thing.
            #expect(try await h.registrar.register(Self.identity).device.deviceID == "nblocalonly000000000")
            #expect(try h.emulator.stats().effects("onboard") == 1)
        }
    }
}
