import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import Testing

@testable import Registry

/// The modules' credentials sealed under the secrets key (docs/operations.md, "Module
/// credentials"), read back from the real SQLite file: its bytes, its log, and other processes'
/// views of it with another key or none.
@Suite("Module credentials sealed at rest under the secrets key")
struct CredentialSealingTests {
    static let imeiA = "490154203237518"
    static let imeiB = "356938035643809"
    let store: TestStore
    let key = StoreSecretsKey.generate()

    init() throws { store = try TestStore() }

    func registry(_ access: SecretsKeyAccess) throws -> Registry {
        try Registry(path: store.path, secretsKey: access)
    }

    /// The store's bytes on disk: the database file and its write-ahead log.
    func bytesOnDisk() throws -> Data {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        if let log = try? Data(contentsOf: URL(fileURLWithPath: store.path + "-wal")) { bytes.append(log) }
        return bytes
    }

    func onDisk(_ text: String) throws -> Bool { try bytesOnDisk().range(of: Data(text.utf8)) != nil }

    /// Registers module `imei` as `deviceID` with `credential`, as a cloud's answer is recorded.
    func register(_ registry: Registry, _ imei: String, _ deviceID: String, credential: String?) throws {
        _ = try registry.directory.recordRegistration(
            ModuleIdentity(imei: try IMEI(imei)),
            deviceID: try DeviceID(deviceID),
            labelCode: imei,
            credential: credential,
            minted: false
        )
    }

    /// The stored (sealed) column values of row `imei`, read with SQL as any group member can.
    func stored(_ imei: String) throws -> (secret: String, credential: String?) {
        let queue = try DatabaseQueue(path: store.path)
        return try queue.read { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: "SELECT secret, cloud_credential FROM module_credential WHERE imei = ?",
                    arguments: [imei]
                )
            )
            return (row["secret"], row["cloud_credential"])
        }
    }

    @Test("A secret and a credential written through the façade are not in the file or its log in clear")
    func notInClear() throws {
        let registry = try registry(.key(key))
        let secret = try registry.directory.moduleSecret(imei: Self.imeiA)
        let token = "kii-token-" + String(repeating: "Q7", count: 20)
        try register(registry, Self.imeiA, "th.sealed0001", credential: token)
        #expect(try !onDisk(secret), "the secret's bytes are in the store file")
        #expect(try !onDisk(token), "the token's bytes are in the store file")
        let (sealedSecret, sealedToken) = try stored(Self.imeiA)
        #expect(sealedSecret.hasPrefix("sealed v1 \(key.id) "))
        #expect(sealedToken?.hasPrefix("sealed v1 \(key.id) ") == true)
        #expect(sealedSecret.count <= 128, "the column's CHECK allows 128")
        // And they open again, here and in another process holding the key.
        #expect(try registry.directory.moduleSecret(imei: Self.imeiA) == secret)
        let other = try self.registry(.key(try StoreSecretsKey(bytes: keyBytes(key))))
        #expect(try other.directory.moduleSecret(deviceID: "th.sealed0001") == secret)
        #expect(try other.directory.moduleCredential(deviceID: "th.sealed0001") == token)
        #expect(try other.directory.moduleCredentials() == [Self.imeiA: token])
    }

    @Test("Another key cannot open them: SECRETS_KEY_MISMATCH names the IMEI, the device and both keys")
    func wrongKey() throws {
        let registry = try registry(.key(key))
        _ = try registry.directory.moduleSecret(imei: Self.imeiA)
        try register(registry, Self.imeiA, "th.sealed0002", credential: "token-of-a-thing-0002")
        let before = try stored(Self.imeiA)
        let other = StoreSecretsKey.generate()
        let wrong = try self.registry(.key(other))
        for read in [
            { _ = try wrong.directory.moduleSecret(imei: Self.imeiA) },
            { _ = try wrong.directory.moduleSecret(deviceID: "th.sealed0002") },
            { _ = try wrong.directory.moduleCredential(deviceID: "th.sealed0002") },
            { _ = try wrong.directory.moduleCredentials() },
        ] as [() throws -> Void] {
            let error = try #require(throws: NBGWError.self) { try read() }
            #expect(error.code == .secretsKeyMismatch)
            #expect(error.message.contains("IMEI \(Self.imeiA)"), "\(error)")
            #expect(error.message.contains(key.id) && error.message.contains(other.id), "\(error)")
            #expect(!error.message.contains("token-of-a-thing"))
        }
        let named = try #require(throws: NBGWError.self) {
            try wrong.directory.moduleCredential(deviceID: "th.sealed0002")
        }
        #expect(named.message.contains("device th.sealed0002"), "\(named)")
        // Nothing was rewritten under the wrong key.
        #expect(try stored(Self.imeiA) == before)
    }

    @Test("Without a key: SECRETS_KEY_MISSING names the IMEI and why, and no secret is made in clear")
    func noKey() throws {
        let registry = try registry(.key(key))
        _ = try registry.directory.moduleSecret(imei: Self.imeiA)
        try register(registry, Self.imeiA, "th.sealed0003", credential: "token-of-a-thing-0003")
        let keyless = try self.registry(.unavailable("user alice may not read /etc/nbgw/credentials/secrets.key"))
        let existing = try #require(throws: NBGWError.self) { try keyless.directory.moduleSecret(imei: Self.imeiA) }
        #expect(existing.code == .secretsKeyMissing)
        #expect(existing.message.contains("IMEI \(Self.imeiA)") && existing.message.contains("user alice"))
        #expect(throws: NBGWError.self) { try keyless.directory.moduleCredential(deviceID: "th.sealed0003") }
        let fresh = try #require(throws: NBGWError.self) { try keyless.directory.moduleSecret(imei: Self.imeiB) }
        #expect(fresh.code == .secretsKeyMissing)
        try register(keyless, Self.imeiB, "th.sealed0004", credential: nil)
        #expect(throws: NBGWError.self) {
            try register(keyless, Self.imeiB, "th.sealed0004", credential: "token-of-a-thing-0004")
        }
        let rows = try DatabaseQueue(path: store.path).read { db in
            try String.fetchAll(db, sql: "SELECT imei FROM module_credential ORDER BY imei")
        }
        #expect(rows == [Self.imeiA], "a keyless process wrote a credential row")
        #expect(try !onDisk("token-of-a-thing-0004"))
        // What needs no credential works: the module without one reads as nil.
        #expect(try keyless.directory.moduleSecret(deviceID: "th.sealed0004") == nil)
    }

    @Test("Rows an older nbgw wrote in clear keep working and are sealed once, scrubbed from the file")
    func migratesRowsInClear() throws {
        // The store as nbgw before sealing left it: the same SQL, the values in clear, checkpointed
        // into the database file.
        let setup = try registry(.none)
        try register(setup, Self.imeiA, "th.legacy00001", credential: nil)
        try register(setup, Self.imeiB, "th.legacy00002", credential: nil)
        let secretA = "legacysecret0000000000000000aaaa"
        let secretB = "legacysecret0000000000000000bbbb"
        let token = "legacy-thing-token-Zr7Yw3nLpV0kJ8q2"
        let writer = try DatabaseQueue(path: store.path)
        try writer.write { db in
            for (imei, secret, credential) in [
                (Self.imeiA, secretA, "kii-thing=th.other0001 " + token), (Self.imeiB, secretB, nil),
            ] as [(String, String, String?)] {
                try db.execute(
                    sql: """
                        INSERT INTO module_credential (imei, secret, cloud_credential, created_at, updated_at)
                        VALUES (?, ?, ?, 1, 1)
                        """,
                    arguments: [imei, secret, credential]
                )
            }
        }
        try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try writer.close()
        #expect(try onDisk(secretA) && onDisk(token), "the setup did not write the values in clear")

        let daemon = try registry(.key(key))
        #expect(try daemon.directory.credentialSealing() == Registry.CredentialSealing(inClear: 3))
        // Before sealing, the key holder reads them as they are.
        #expect(try daemon.directory.moduleSecret(imei: Self.imeiA) == secretA)
        let (sealed, after) = try daemon.directory.sealCredentialsInClear()
        #expect(sealed == 3)
        #expect(after == Registry.CredentialSealing(sealedUnderKey: 3))
        #expect(try daemon.directory.sealCredentialsInClear().sealed == 0, "sealed a second time")
        #expect(try daemon.directory.moduleSecret(imei: Self.imeiA) == secretA)
        #expect(try daemon.directory.moduleSecret(deviceID: "th.legacy00002") == secretB)
        #expect(try daemon.directory.moduleCredential(deviceID: "th.legacy00001") == "kii-thing=th.other0001 " + token)
        #expect(try stored(Self.imeiA).secret.hasPrefix("sealed v1 "))
        for text in [secretA, secretB, token] {
            #expect(try !onDisk(text), "\(text) is still in the store's bytes")
        }
    }

    @Test("A sealed value moved to another row or column does not open")
    func associatedData() throws {
        let registry = try registry(.key(key))
        _ = try registry.directory.moduleSecret(imei: Self.imeiA)
        _ = try registry.directory.moduleSecret(imei: Self.imeiB)
        try register(registry, Self.imeiA, "th.moved00001", credential: "token-of-a-thing-0005")
        try register(registry, Self.imeiB, "th.moved00002", credential: nil)
        let sealedA = try stored(Self.imeiA)
        // An operator with sqlite3 gives module B the sealed secret of module A, and A's secret
        // as its own token.
        try DatabaseQueue(path: store.path).write { db in
            try db.execute(
                sql: "UPDATE module_credential SET secret = ? WHERE imei = ?",
                arguments: [sealedA.secret, Self.imeiB]
            )
            try db.execute(
                sql: "UPDATE module_credential SET cloud_credential = ? WHERE imei = ?",
                arguments: [sealedA.secret, Self.imeiA]
            )
        }
        let moved = try #require(throws: NBGWError.self) { try registry.directory.moduleSecret(imei: Self.imeiB) }
        #expect(moved.code == .secretsKeyMismatch)
        #expect(moved.message.contains("IMEI \(Self.imeiB)") && moved.message.contains("copied"), "\(moved)")
        let swapped = try #require(throws: NBGWError.self) {
            try registry.directory.moduleCredential(deviceID: "th.moved00001")
        }
        #expect(swapped.code == .secretsKeyMismatch)
        // Altered in place: one character of the ciphertext.
        var altered = Array(sealedA.secret)
        altered[altered.count - 5] = altered[altered.count - 5] == "A" ? "B" : "A"
        try DatabaseQueue(path: store.path).write { db in
            try db.execute(
                sql: "UPDATE module_credential SET secret = ? WHERE imei = ?",
                arguments: [String(altered), Self.imeiA]
            )
        }
        let tampered = try #require(throws: NBGWError.self) { try registry.directory.moduleSecret(imei: Self.imeiA) }
        #expect(tampered.code == .secretsKeyMismatch && tampered.message.contains("altered"), "\(tampered)")
    }

    @Test("rekey seals every credential under the new key in one step; one that does not open changes nothing")
    func reseal() throws {
        let registry = try registry(.key(key))
        let secret = try registry.directory.moduleSecret(imei: Self.imeiA)
        try register(registry, Self.imeiA, "th.rekey00001", credential: "token-of-a-thing-0006")
        let next = StoreSecretsKey.generate()
        #expect(try registry.directory.resealCredentials(under: next) == 2)
        let reopened = try self.registry(.key(next))
        #expect(try reopened.directory.moduleSecret(imei: Self.imeiA) == secret)
        #expect(try reopened.directory.moduleCredential(deviceID: "th.rekey00001") == "token-of-a-thing-0006")
        #expect(throws: NBGWError.self) { try registry.directory.moduleSecret(imei: Self.imeiA) }
        // With the old key, nothing opens, so nothing changes.
        let before = try stored(Self.imeiA)
        #expect(throws: NBGWError.self) { try registry.directory.resealCredentials(under: StoreSecretsKey.generate()) }
        #expect(try stored(Self.imeiA) == before)
    }
}

/// The key's 32 bytes (the key file's content), for a second process holding the same key.
func keyBytes(_ key: StoreSecretsKey) -> [UInt8] {
    key.bytes
}
