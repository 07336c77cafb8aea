import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import Provisioning
import Registry
import Testing
import TuyaCloud

/// The fleet's labels: a label printed at one gateway binds at another whose store never saw the
/// module, under the fleet-wide one-owner rule.
@Suite("Fleet cloud: labels across gateways")
struct FleetLabelsTests {
    @Test("A label printed at gateway A binds at gateway B, which records the module as the cloud registered it")
    func labelsOfOneGatewayBindAtAnother() async throws {
        try await FleetFixture.with { fleet in
            let a = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            let b = try FleetGateway(
                name: "b",
                credentials: try await fleet.addGateway("b"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            do {
                try await Self.scenario(fleet, a, b)
            } catch {
                await a.shutdown()
                await b.shutdown()
                throw error
            }
            await a.shutdown()
            await b.shutdown()
        }
    }

    static func scenario(_ fleet: FleetFixture, _ a: FleetGateway, _ b: FleetGateway) async throws {
        let imei = FleetIMEIs.make(1, base: 35_693_803_100_000)[0]
        var identity = ModuleIdentity(imei: try IMEI(imei))
        identity.productID = "nbgw-meter"
        let registered = try await a.registrar.register(identity).device
        let label = a.bindings.labelPayload(for: registered)
        #expect(try b.registry.directory.device(imei: imei) == nil, "B has never seen the module")

        try b.addAccount("bob")
        let outcome = try await b.bindings.bind(qr: label, account: "bob", home: "bob-home", source: .cli)
        #expect(outcome.outcome.binding.deviceID == registered.deviceID)
        #expect(outcome.syncState == "synced", "\(String(describing: outcome.syncMessage))")
        let recorded = try #require(try b.registry.directory.device(id: registered.deviceID))
        #expect(recorded.imei == imei && recorded.labelCode == registered.labelCode)
        #expect(recorded.productID == "nbgw-meter")
        #expect(try await fleet.sql("SELECT uid || '/' || gateway FROM binding") == "bob/b")

        // At A, the same label for another account: bound locally, refused by the cloud naming the owner.
        try a.addAccount("carol")
        let refused = try await a.bindings.bind(qr: label, account: "carol", home: "carol-home", source: .cli)
        #expect(refused.syncState == "failed")
        #expect(
            refused.syncMessage?.contains("to account bob through gateway b") == true,
            "\(String(describing: refused.syncMessage))"
        )
        #expect(try await fleet.sql("SELECT uid || '/' || gateway FROM binding") == "bob/b")
    }

    @Test("A gateway's sync check leaves the fleet's other modules alone and still finds its own missing ones")
    func syncChecksSeeOnlyTheirOwnModulesAsMissing() async throws {
        try await FleetFixture.with { fleet in
            let a = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            let b = try FleetGateway(
                name: "b",
                credentials: try await fleet.addGateway("b"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            let imeis = FleetIMEIs.make(3, base: 35_693_803_500_000)
            let result: Result<Void, Error>
            do {
                _ = try await a.registrar.register(ModuleIdentity(imei: try IMEI(imeis[0])))
                _ = try await a.registrar.register(ModuleIdentity(imei: try IMEI(imeis[1])))
                #expect(try await CloudSyncChecker.check(registry: b.registry, cloud: b.http).divergences.isEmpty)

                // B's own registration whose store record is lost: reported, by IMEI.
                _ = try await b.http.register(
                    CloudModule(identity: ModuleIdentity(imei: try IMEI(imeis[2]))),
                    attempt: CloudAttempt(idempotencyKey: IdempotencyKey.make(), patience: .interactive)
                )
                let report = try await CloudSyncChecker.check(registry: b.registry, cloud: b.http)
                #expect(report.divergences.map(\.kind) == [.deviceOnlyInCloud], "\(report.divergences)")
                #expect(report.divergences.first?.imei == imeis[2])
                result = .success(())
            } catch {
                result = .failure(error)
            }
            await a.shutdown()
            await b.shutdown()
            try result.get()
        }
    }
}
