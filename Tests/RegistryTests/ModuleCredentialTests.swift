import DeviceIdentity
import Foundation
import NBGWCore
import Testing

@testable import Registry

@Suite("Module secrets and cloud credentials (schema v9)")
struct ModuleCredentialTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-cred-\(UUID().uuidString)")
    /// The daemon's: the credentials are sealed under it.
    let key = StoreSecretsKey.generate()

    func registry() throws -> Registry {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try Registry(path: directory.appendingPathComponent("s.sqlite").path, secretsKey: .key(key))
    }

    @Test("A module's secret is made once and is the same ever after, also from another connection")
    func secretIsStable() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try registry()
        let first = try store.directory.moduleSecret(imei: "490154203237518")
        #expect(first.count == 32)
        #expect(try store.directory.moduleSecret(imei: "490154203237518") == first)
        let reopened = try Registry(path: store.path, secretsKey: .key(key))
        #expect(try reopened.directory.moduleSecret(imei: "490154203237518") == first)
        #expect(try store.directory.moduleSecret(imei: "356938035643809") != first)
    }

    @Test("A registration keeps the credential its cloud issued, replaced by a newer one, kept when none comes")
    func credentialFollowsRegistrations() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try registry()
        let identity = ModuleIdentity(imei: try IMEI("490154203237518"))
        let secret = try store.directory.moduleSecret(imei: "490154203237518")
        let deviceID = try DeviceID("nbcred00000000000001")
        _ = try store.directory.recordRegistration(
            identity,
            deviceID: deviceID,
            labelCode: "TH0123",
            credential: "tok-1",
            minted: false
        )
        #expect(try store.directory.moduleCredential(deviceID: deviceID.rawValue) == "tok-1")
        _ = try store.directory.recordRegistration(
            identity,
            deviceID: deviceID,
            labelCode: "TH0123",
            credential: "tok-2",
            minted: false
        )
        #expect(try store.directory.moduleCredential(deviceID: deviceID.rawValue) == "tok-2")
        _ = try store.directory.recordRegistration(identity, deviceID: deviceID, labelCode: "TH0123", minted: false)
        #expect(try store.directory.moduleCredential(deviceID: deviceID.rawValue) == "tok-2")
        #expect(try store.directory.moduleCredentials() == ["490154203237518": "tok-2"])
        #expect(try store.directory.moduleSecret(imei: "490154203237518") == secret)
    }

    @Test("A remote cloud's ids that clash with the store are refused; minted ones ask for new ids")
    func clashes() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try registry()
        let taken = try DeviceID("nbtaken0000000000001")
        _ = try store.directory.recordRegistration(
            ModuleIdentity(imei: try IMEI("490154203237518")),
            deviceID: taken,
            labelCode: "TAKEN0000001",
            minted: true
        )
        let other = ModuleIdentity(imei: try IMEI("356938035643809"))
        #expect(
            try store.directory.recordRegistration(other, deviceID: taken, labelCode: "FRESH0000001", minted: true)
                == nil
        )
        #expect(throws: NBGWError.self) {
            try store.directory.recordRegistration(other, deviceID: taken, labelCode: "FRESH0000001", minted: false)
        }
        #expect(try store.directory.device(imei: "356938035643809") == nil)
    }
}
