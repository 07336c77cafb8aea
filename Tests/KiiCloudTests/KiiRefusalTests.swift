import Cloud
import CloudCatalogue
import DeviceIdentity
import Foundation
import GRDB
import KiiCloud
import KiiEmulatorKit
import Provisioning
import Testing

@testable import Registry

@Suite("Kii refusals: unseen labels, accounts without a Kii user, another gateway's thing")
struct KiiRefusalTests {
    @Test("A label the store never saw is refused at once: Kii has no label service, and the message says so")
    func unseenLabel() async throws {
        try await KiiHarness.with { h async throws in
            try h.seedAccounts()
            let error = try #require(
                await errorOf {
                    _ = try await h.bindings.bind(
                        qr: KiiConfiguration.defaultLabelBase + Modules.imeiB,
                        account: "alice",
                        home: "lab",
                        source: .cli
                    )
                }
            )
            #expect(error.code == .unknownDevice)
            #expect(error.message.contains("no label service"))
            #expect(error.message.contains("nbgw devices register --imei \(Modules.imeiB)"))
            #expect(try h.emulator.stats().requests == 0)

            let foreign = try #require(
                await errorOf {
                    _ = try await h.bindings.bind(
                        qr: "https://label.nbgw-cloud.invalid/d/ABCDEFGH2345",
                        account: "alice",
                        home: "lab",
                        source: .cli
                    )
                }
            )
            #expect(foreign.code == .qrProtocolNotRecognized)
        }
    }

    @Test("An app that wants the thing's password, a store whose secret does not match: refused, and says so")
    func ownerPasswordMismatch() async throws {
        try await KiiHarness.with(requireThingPassword: true) { h async throws in
            try h.seedAccounts()
            let registration = try await h.registrar.register(ModuleIdentity(imei: try IMEI(Modules.imeiA)))
            // As if the thing had been onboarded by another gateway with its own password.
            try await h.registry.pool.write { db in
                try db.execute(
                    sql: "UPDATE module_credential SET secret = ? WHERE imei = ?",
                    arguments: ["another-gateways-secret-0123456789", Modules.imeiA]
                )
            }
            let result = try await h.bindLabel(registration)
            #expect(result.outcome.status == .bound)
            #expect(result.sync?.state == .failed)
            #expect(
                result.sync?.message?.contains("wants the thing's password") == true,
                "\(String(describing: result.sync))"
            )
            #expect(result.sync?.message?.contains("another-gateways-secret") == false)
            #expect(try h.owners(imei: Modules.imeiA) == [KiiEmulatorConfiguration.ownerLoginName])
        }
    }

    @Test("An account with no Kii user: the local bind stands, the cloud refuses, the sync check says why")
    func accountWithoutKiiUser() async throws {
        try await KiiHarness.with { h async throws in
            try h.seedAccounts()
            let registration = try await h.registrar.register(ModuleIdentity(imei: try IMEI(Modules.imeiA)))
            let result = try await h.bindings.bind(
                qr: registration.labelPayload,
                account: "carol",
                home: "den",
                source: .cli
            )
            #expect(result.outcome.status == .bound)
            #expect(result.sync?.state == .failed)
            #expect(result.sync?.code == "UNKNOWN_ACCOUNT")
            #expect(result.sync?.message?.contains("login name") == true)
            let check = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud)
            #expect(check.divergences.map(\.kind).contains(.syncFailed))
            #expect(check.divergences.map(\.kind).contains(.bindingMissingInCloud))
        }
    }

    @Test("Another gateway onboarded the IMEI with its own password: refused for good, DEVICE_ALREADY_BOUND")
    func anotherGatewaysThing() async throws {
        try await KiiHarness.with { h async throws in
            // Another gateway: its own store and its own secrets key.
            let other = try Registry(
                path: h.directory.appendingPathComponent("other.sqlite").path,
                secretsKey: .key(StoreSecretsKey.generate())
            )
            _ = try await DeviceRegistrar(cloud: h.cloud, registry: other).register(
                ModuleIdentity(imei: try IMEI(Modules.imeiA))
            )
            let error = try #require(
                await errorOf { _ = try await h.registrar.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))) }
            )
            #expect(error.code == .deviceAlreadyBound)
            #expect(error.message.contains("another password"))
            #expect(try h.emulator.stats().effects("onboard") == 1)
            #expect(try h.registry.outbox.entries(states: [.dead], limit: 10).count == 1)
        }
    }
}

@Suite("Kii configuration: the URL, the environment over the file, never a token in a message")
struct KiiConfigurationTests {
    static let environment = ["NBGW_KII_OWNER": "USER:u-1", "NBGW_KII_OWNER_TOKEN": "secret-token-0001"]

    @Test("`--cloud kii+https://…` selects Kii; plain https stays the Tuya-style cloud")
    func selection() throws {
        #expect(try CloudCatalogue.selection(spec: "kii+https://api-jp.kii.com/abc123").mode == "kii")
        #expect(try CloudCatalogue.selection(spec: "KII+http://127.0.0.1:8788/abc").mode == "kii")
        #expect(try CloudCatalogue.selection(spec: "https://openapi.tuyaeu.com").mode == "http")
        #expect(CloudCatalogue.modes == ["local", "http", "kii"])
    }

    @Test("The app id comes from the URL's path or the settings; the environment wins over the file")
    func resolution() throws {
        let fromURL = try KiiConfiguration.resolve(
            url: "kii+https://api-jp.kii.com/abc123",
            environment: Self.environment
        )
        #expect(fromURL.site == "https://api-jp.kii.com" && fromURL.appID == "abc123")
        #expect(fromURL.owner == (try KiiOwner(kind: .user, id: "u-1")))
        let fromFile = try KiiConfiguration.resolve(
            url: "https://api-sg.kii.com",
            settings: [
                "app_id": "fileapp", "owner": "GROUP:g-9", "owner_token": "file-token-0002", "max_attempts": "3",
            ],
            environment: [:]
        )
        #expect(fromFile.appID == "fileapp" && fromFile.owner.typedID == "group:g-9")
        #expect(fromFile.retryPolicy.maxAttempts == 3)
        let overridden = try KiiConfiguration.resolve(
            url: "kii+https://api-sg.kii.com",
            settings: ["app_id": "fileapp", "owner": "USER:file-user", "owner_token": "file-token-0002"],
            environment: ["NBGW_KII_APP_ID": "envapp", "NBGW_KII_OWNER": "USER:env-user"]
        )
        #expect(overridden.appID == "envapp" && overridden.owner.id == "env-user")
    }

    @Test("Bad settings are refused with the variable or key to fix; the token never appears")
    func refusals() throws {
        func message(_ url: String, _ environment: [String: String]) -> String {
            do {
                _ = try KiiConfiguration.resolve(url: url, environment: environment)
                return ""
            } catch {
                return error.message
            }
        }
        #expect(message("kii+http://kii.example.com/app", Self.environment).contains("plain http only to a loopback"))
        #expect(message("kii+https://api-jp.kii.com", Self.environment).contains("NBGW_KII_APP_ID"))
        #expect(message("kii+https://api-jp.kii.com/app", [:]).contains("NBGW_KII_OWNER_TOKEN"))
        #expect(
            message(
                "kii+https://api-jp.kii.com/app",
                ["NBGW_KII_OWNER": "alice", "NBGW_KII_OWNER_TOKEN": "secret-token-0001"]
            ).contains("USER:<Kii user id>")
        )
        let configuration = try KiiConfiguration.resolve(
            url: "kii+https://api-jp.kii.com/app",
            environment: Self.environment
        )
        #expect(!configuration.description.contains("secret-token-0001"))
        #expect(configuration.description.contains("<redacted>"))
        #expect(KiiCloud.secretKeys == ["owner_token"])
    }

    @Test("Thing types come from the model, within Kii's characters")
    func thingTypes() {
        #expect(KiiCloud.thingType(model: "BC66") == "BC66")
        #expect(KiiCloud.thingType(model: "SIM7080G/NB") == "SIM7080G-NB")
        #expect(KiiCloud.thingType(model: nil) == KiiCloud.defaultThingType)
    }
}
