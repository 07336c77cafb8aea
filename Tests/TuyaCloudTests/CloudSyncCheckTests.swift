import Cloud
import DeviceIdentity
import Provisioning
import Registry
import Testing
import TuyaCloud

@Suite("Sync check: where the store and the cloud disagree")
struct CloudSyncCheckTests {
    @Test("Local-only modules, cloud-only modules and bindings, and id mismatches are each reported")
    func divergences() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            // Only here: registered with the embedded cloud, never sent.
            let localOnly = try #require(
                try h.registry.directory.recordRegistration(
                    ModuleIdentity(imei: try IMEI(Modules.imeiA)),
                    deviceID: try! DeviceID("nblocalonly000000000"),
                    labelCode: "LOCALONLY001",
                    minted: true
                )
            )
            // Only in the cloud: another gateway registered and bound it.
            let other = try h.makeCloud(
                registry: try Registry(path: h.directory.appendingPathComponent("other.sqlite").path)
            )
            let foreign = try await other.register(ModuleIdentity(imei: try IMEI(Modules.imeiB))).device.deviceID
            let token = try await other.createPairingToken(home: "attic", account: "bob")
            _ = try await other.bindInCloud(deviceID: foreign, account: "bob", home: "attic", token: token.token)
            await other.shutdown()

            let report = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud.http)
            let kinds = report.divergences.map(\.kind)
            #expect(kinds.contains(.deviceMissingInCloud))
            #expect(kinds.contains(.deviceOnlyInCloud))
            #expect(kinds.contains(.bindingOnlyInCloud))
            #expect(
                report.divergences.first { $0.kind == .deviceMissingInCloud }?.deviceID == localOnly.device.deviceID
            )
            #expect(report.localDevices == 1 && report.cloudDevices == 1 && report.cloudBindings == 1)
            #expect(!report.isConsistent)

            // Registering it with the HTTP cloud keeps its id, and that divergence goes away.
            _ = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA)))
            let after = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud.http)
            #expect(!after.divergences.map(\.kind).contains(.deviceMissingInCloud))
        }
    }

    @Test("The report encodes as JSON with stable kind names")
    func encodes() throws {
        let report = CloudSyncReport(
            localDevices: 1,
            cloudDevices: 0,
            localBindings: 0,
            cloudBindings: 0,
            divergences: [CloudSyncDivergence(kind: .deviceMissingInCloud, deviceID: "nb1", imei: "1", detail: "d")]
        )
        let json = try CloudJSON.string(report)
        #expect(json.contains(#""kind":"device-missing-in-cloud""#))
        #expect(json.contains(#""deviceId":"nb1""#))
    }
}
