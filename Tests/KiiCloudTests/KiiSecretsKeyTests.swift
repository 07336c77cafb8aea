import Cloud
import DeviceIdentity
import Foundation
import GRDB
import KiiCloud
import KiiEmulatorKit
import NBGWCore
import Provisioning
import Registry
import Testing

/// Kii's thing passwords and tokens, sealed under the secrets key: what reaches the store file,
/// and what a process without the key (an operator's `nbgw`) does with Kii work, against the
/// emulator over real HTTP.
@Suite("Kii credentials under the secrets key: sealed in the store, left to the daemon without the key")
struct KiiSecretsKeyTests {
    static let identity = try! ModuleIdentity(imei: IMEI(Modules.imeiA), model: "BC66")

    @Test("Registering keeps the thing's password and token sealed: the store file holds neither in clear")
    func registrationIsSealed() async throws {
        try await KiiHarness.with(requireThingPassword: true) { h async throws in
            let registration = try await h.registrar.register(Self.identity)
            let password = try h.registry.directory.moduleSecret(imei: Modules.imeiA)
            let token = try #require(try h.thingToken(imei: Modules.imeiA))
            #expect(try h.registry.directory.moduleCredential(deviceID: registration.device.deviceID) == token)
            let bytes = try h.storeBytes()
            #expect(bytes.range(of: Data(password.utf8)) == nil, "the thing's password is in the store in clear")
            #expect(bytes.range(of: Data(token.utf8)) == nil, "the thing's token is in the store in clear")
            let sealed = try DatabaseQueue(path: h.registry.path).read { db in
                try Row.fetchOne(db, sql: "SELECT secret, cloud_credential FROM module_credential")
            }
            #expect((sealed?["secret"] as String?)?.hasPrefix("sealed v1 \(h.secretsKey.id) ") == true)
            #expect((sealed?["cloud_credential"] as String?)?.hasPrefix("sealed v1 \(h.secretsKey.id) ") == true)
            // The thing's password is the one Kii knows: a bind that needs it goes through.
            try h.seedAccounts()
            let bound = try await h.bindLabel(registration)
            #expect(bound.sync?.state == .synced, "\(String(describing: bound.sync))")
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName, "alice"])
        }
    }

    @Test("Without the key a bind commits locally, leaves its Kii call queued, and the key holder sends it")
    func keylessBindIsLeftForTheDaemon() async throws {
        try await KiiHarness.with(requireThingPassword: true) { h async throws in
            try h.seedAccounts()
            let registration = try await h.registrar.register(Self.identity)
            let keyless = try h.keylessRegistry()
            let operatorCLI = BindingService(cloud: h.cloud, registry: keyless, cloudWait: .seconds(30))
            let bound = try await operatorCLI.bind(
                qr: registration.labelPayload,
                account: "alice",
                home: "lab",
                source: .cli
            )
            #expect(bound.outcome.status == .bound)
            let sync = try #require(bound.sync)
            #expect(sync.state == .queued)
            #expect(sync.code == "SECRETS_KEY_MISSING")
            #expect(sync.message?.contains("the daemon sends it") == true, "\(sync)")
            #expect(sync.message?.contains("user alice may not read") == true, "\(sync)")
            // Not claimed, not counted as an attempt, not sent: Kii has no new owner.
            let outboxID = try #require(sync.outboxID)
            let row = try #require(try keyless.outbox.entry(id: outboxID))
            #expect(row.state == .pending && row.attempts == 0)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName])

            // `nbgw cloud sync` without the key claims nothing and says why.
            let keylessDrain = await OutboxDrainer(registry: keyless, cloud: h.cloud).drain()
            #expect(keylessDrain.sent == 0)
            #expect(keylessDrain.stoppedBy?.contains("queued; the daemon sends them") == true)
            #expect(keylessDrain.remaining["pending"] == 1)
            #expect(try keyless.outbox.entry(id: row.id)?.attempts == 0)

            // The daemon, holding the key, sends it.
            let daemonDrain = await h.drainer().drain()
            #expect(daemonDrain.sent == 1, "\(daemonDrain)")
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName, "alice"])
            #expect(try h.emulator.stats().effects("onboard") == 1)
        }
    }

    @Test("Without the key a registration is queued with SECRETS_KEY_MISSING; the key holder onboards it")
    func keylessRegistrationIsLeftForTheDaemon() async throws {
        try await KiiHarness.with { h async throws in
            let keyless = try h.keylessRegistry()
            let error = await errorOf {
                _ = try await DeviceRegistrar(cloud: h.cloud, registry: keyless).register(Self.identity)
            }
            #expect(error?.code == .secretsKeyMissing)
            #expect(error?.message.contains("queued (outbox row #") == true, "\(String(describing: error))")
            #expect(error?.message.contains("the daemon sends it") == true)
            #expect(try h.emulator.stats().effects("onboard") == 0)
            #expect(try keyless.directory.device(imei: Modules.imeiA) == nil)

            let drained = await h.drainer().drain()
            #expect(drained.sent == 1, "\(drained)")
            let device = try #require(try h.registry.directory.device(imei: Modules.imeiA))
            #expect(device.deviceID.hasPrefix("th."))
            #expect(try h.registry.directory.moduleCredential(deviceID: device.deviceID) != nil)
        }
    }

    @Test("Under another key a bind's Kii call is held back, the IMEI named, the token never sent or shown")
    func wrongKey() async throws {
        try await KiiHarness.with { h async throws in
            try h.seedAccounts()
            let registration = try await h.registrar.register(Self.identity)
            let token = try #require(try h.thingToken(imei: Modules.imeiA))
            let otherKey = try Registry(
                path: h.registry.path,
                clock: h.wallClock,
                secretsKey: .key(StoreSecretsKey.generate())
            )
            let bound = try await BindingService(cloud: h.cloud, registry: otherKey, cloudWait: .seconds(30)).bind(
                qr: registration.labelPayload,
                account: "alice",
                home: "lab",
                source: .cli
            )
            #expect(bound.outcome.status == .bound)
            #expect(bound.sync?.state == .queued)
            #expect(bound.sync?.code == "SECRETS_KEY_MISMATCH")
            #expect(bound.sync?.message?.contains("IMEI \(Modules.imeiA)") == true, "\(String(describing: bound.sync))")
            #expect(bound.sync?.message?.contains(token) == false)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName])
        }
    }
}
