import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import Testing

@testable import Registry

@Suite("Registry: the schema holds the invariants by itself")
struct RegistrySchemaTests {
    func seeded() throws -> (TestStore, Registry) {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        try registry.directory.addAccount(name: "alice", role: .owner)
        try registry.directory.addAccount(name: "gus", role: .guest)
        try registry.directory.addHome(name: "home", owner: "alice")
        _ = try #require(
            try registry.directory.recordRegistration(
                ModuleIdentity(imei: try IMEI("490154203237518")),
                deviceID: try! DeviceID("dev-1"),
                labelCode: "LABEL0001",
                minted: true
            )
        )
        return (store, registry)
    }

    /// Raw SQL on a second connection, the way a careless script would write.
    func raw(_ path: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql) }
    }

    @Test("The store file is created with mode 0600")
    func fileMode() throws {
        let (store, _) = try seeded()
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test("The store is in WAL mode and reopening it keeps the data")
    func walAndReopen() throws {
        let (store, registry) = try seeded()
        _ = registry
        let reopened = try Registry(path: store.path)
        #expect(try reopened.directory.accounts().map(\.name) == ["alice", "gus"])
        let mode = try DatabaseQueue(path: store.path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode")
        }
        #expect(mode == "wal")
    }

    @Test("A second binding row for one device violates the primary key")
    func oneBindingPerDevice() throws {
        let (store, _) = try seeded()
        try raw(
            store.path,
            "INSERT INTO binding (device_row, account_id, home_id, bound_at, source) VALUES (1, 1, 1, 0, 'cli')"
        )
        #expect(throws: DatabaseError.self) {
            try raw(
                store.path,
                "INSERT INTO binding (device_row, account_id, home_id, bound_at, source) VALUES (1, 1, 1, 0, 'csv')"
            )
        }
        #expect(throws: DatabaseError.self) { try raw(store.path, "UPDATE binding SET account_id = 2") }
    }

    @Test("Triggers refuse guest bindings, bad sources, bad IMEIs, reused tokens and audit edits")
    func triggersAndChecks() throws {
        let (store, registry) = try seeded()
        #expect(throws: DatabaseError.self) {
            try raw(
                store.path,
                "INSERT INTO binding (device_row, account_id, home_id, bound_at, source) VALUES (1, 2, 1, 0, 'cli')"
            )
        }
        #expect(throws: DatabaseError.self) {
            try raw(
                store.path,
                "INSERT INTO binding (device_row, account_id, home_id, bound_at, source) VALUES (1, 1, 1, 0, 'fax')"
            )
        }
        #expect(throws: DatabaseError.self) {
            try raw(
                store.path,
                "INSERT INTO device (device_id, imei, label_code, registered_at, updated_at) VALUES ('x', '12345', 'ABCDE', 0, 0)"
            )
        }
        #expect(throws: DatabaseError.self) {
            try raw(
                store.path,
                "INSERT INTO device (device_id, imei, label_code, registered_at, updated_at) VALUES ('dev-1', '356938035643809', 'ABCDEF', 0, 0)"
            )
        }
        _ = try registry.directory.createToken(home: "home")
        try raw(store.path, "UPDATE pairing_token SET used_at = created_at, used_by_device = 1")
        #expect(throws: DatabaseError.self) {
            try raw(store.path, "UPDATE pairing_token SET used_at = NULL, used_by_device = NULL")
        }
        #expect(throws: DatabaseError.self) { try raw(store.path, "DELETE FROM audit_log") }
        #expect(throws: DatabaseError.self) { try raw(store.path, "UPDATE audit_log SET event = 'bind'") }
        #expect(throws: DatabaseError.self) {
            try raw(store.path, "UPDATE account SET role = 'guest' WHERE name = 'alice'")
        }
    }

    @Test("A bind waiting on another writer's lock fails with TIMEOUT within its budget and binds nothing")
    func bindTimesOutBehindALock() throws {
        let (store, registry) = try seeded()
        let blocker = try DatabaseQueue(path: store.path)
        try blocker.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            defer { try? db.execute(sql: "ROLLBACK") }
            let started = ContinuousClock.now
            do {
                _ = try registry.bindings.bind(
                    BindCommand(deviceID: try DeviceID("dev-1"), account: "alice", home: "home", source: .cli),
                    timeout: .milliseconds(300)
                )
                Issue.record("bound while the store was locked")
            } catch let error as NBGWError {
                #expect(error.code == .timeout, "\(error)")
                #expect(error.message.contains("--timeout"))
            }
            #expect(ContinuousClock.now - started < .seconds(5))
        }
        #expect(try registry.bindings.list().isEmpty)
    }

    @Test("Opening a file that is not a store fails with STORE_UNAVAILABLE")
    func notAStore() throws {
        let store = try TestStore()
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: store.path))
        do {
            _ = try Registry(path: store.path)
            Issue.record("opened garbage")
        } catch {
            #expect(error.code == .storeUnavailable, "\(error)")
        }
    }
}
