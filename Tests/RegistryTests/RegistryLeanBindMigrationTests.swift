import DeviceIdentity
import Foundation
import GRDB
import TestClocks
import Testing

@testable import Registry

/// Migration v7 on a store written by v6: two tables rebuilt, nothing lost, the same rules.
@Suite("Registry: migration v7 rebuilds binding and audit_log without losing a row or a rule")
struct RegistryLeanBindMigrationTests {
    /// A store migrated to v6 only, with alice's home, three devices, a used token, two bindings
    /// (one with the token, one without) and their audit rows, one of them from the ingest API.
    static func storeAtV6() throws -> TestStore {
        let store = try TestStore()
        let queue = try DatabaseQueue(path: store.path)
        try Registry.migrator.migrate(queue, upTo: "v6-audit-origin")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO account (id, name, role, created_at) VALUES (1, 'alice', 'owner', 0);
                    INSERT INTO home (id, name, owner_account_id, created_at) VALUES (1, 'lab', 1, 0);
                    INSERT INTO device (id, device_id, imei, label_code, registered_at, updated_at) VALUES
                        (1, 'dev-1', '490154203237518', 'LABEL0001', 0, 0),
                        (2, 'dev-2', '356938035643809', 'LABEL0002', 0, 0),
                        (3, 'dev-3', '353918051234563', 'LABEL0003', 0, 0);
                    INSERT INTO pairing_token (id, token, home_id, created_at, expires_at, used_at, used_by_device)
                        VALUES (7, 'tokentokentoken1', 1, 0, 600000, 5, 1);
                    INSERT INTO binding VALUES (1, 1, 1, 7, 5, 'cli', 'op'), (2, 1, 1, NULL, 6, 'http', 'scanner-1');
                    INSERT INTO audit_log (at, event, device_id, account, home, source, operator, detail)
                        VALUES (5, 'bind', 'dev-1', 'alice', 'lab', 'cli', 'op', 'token#7');
                    INSERT INTO audit_log (at, event, device_id, account, home, source, operator, api_key, client_address)
                        VALUES (6, 'bind', 'dev-2', 'alice', 'lab', 'http', 'scanner-1', 'scanner-1', '127.0.0.1:4000');
                    INSERT INTO ingest_audit (at, audit_id, event, api_key, client_address, device_id)
                        VALUES (6, 2, 'bind', 'scanner-1', '127.0.0.1:4000', 'dev-2');
                    """
            )
        }
        try queue.close()
        return store
    }

    @Test("Rows, ids, trail links and rules survive; AUTOINCREMENT and the index of NULL tokens are gone")
    func upgradesAStoreWrittenByV6() throws {
        let store = try Self.storeAtV6()
        let registry = try Registry(path: store.path, clock: ManualWallClock())

        let bindings = try registry.bindings.list(account: "alice")
        #expect(bindings.map(\.deviceID) == ["dev-1", "dev-2"])
        let audit = try registry.audit.entries()
        #expect(audit.map(\.id) == [1, 2])
        #expect(audit[1].apiKey == "scanner-1" && audit[1].clientAddress == "127.0.0.1:4000")
        #expect(try registry.audit.ingestTrail().map(\.auditID) == [2])
        #expect(try registry.audit.pairingResult(token: "tokentokentoken1")?.binding?.deviceID == "dev-1")

        try registry.pool.read { db in
            let table = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE name = 'audit_log'")
            #expect(table?.contains("AUTOINCREMENT") == false)
            #expect(try String.fetchAll(db, sql: "SELECT name FROM sqlite_sequence").contains("audit_log") == false)
            let indexes = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'binding'"
            )
            #expect(Set(indexes) == ["binding_by_account", "binding_by_token"])
            let triggers = try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_schema
                    WHERE type = 'trigger' AND tbl_name IN ('binding', 'audit_log', 'account')
                    """
            )
            // binding_requires_owner and binding_home_of_account became a foreign key in v12
            // (RegistryLeanBatchMigrationTests).
            #expect(
                Set(triggers) == [
                    "binding_product_allowed", "binding_is_immutable", "audit_log_no_update", "audit_log_no_delete",
                    "account_role_change",
                ]
            )
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }

        // The rules, after the rebuild: append-only log, immutable bindings, single-use tokens,
        // the owner-only trigger on account that reads binding.
        try registry.pool.writeWithoutTransaction { db in
            #expect(throws: DatabaseError.self) { try db.execute(sql: "DELETE FROM audit_log WHERE id = 2") }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "UPDATE audit_log SET at = 0") }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "UPDATE binding SET bound_at = 0") }
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO binding VALUES (3, 1, 1, 7, 9, 'cli', 'op')")
            }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "UPDATE account SET role = 'guest'") }
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO binding VALUES (3, 1, 99, NULL, 9, 'cli', 'op')")
            }
        }

        // New rows continue the ids, and a bind without a token beside another works.
        _ = try registry.bindings.bind(
            BindCommand(deviceID: try DeviceID("dev-3"), account: "alice", home: "lab", source: .cli, operator: "op")
        )
        #expect(try registry.audit.entries().map(\.id) == [1, 2, 3])
        #expect(try registry.bindings.list(account: "alice").count == 3)
    }

    @Test("v7 rebuilds tables of 20 000 bindings and audit rows (a DROP TABLE whose journal spills)")
    func upgradesALargeStore() throws {
        let store = try Self.storeAtV6()
        let queue = try DatabaseQueue(path: store.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 20009)
                    INSERT INTO device (id, device_id, imei, label_code, registered_at, updated_at)
                    SELECT i, printf('big-%06d', i), printf('35%013d', i), printf('BIG%08d', i), 0, 0 FROM n;
                    INSERT INTO binding (device_row, account_id, home_id, bound_at, source, operator)
                    SELECT id, 1, 1, 9, 'csv', 'batch-operator' FROM device WHERE id >= 10;
                    INSERT INTO audit_log (at, event, device_id, account, home, source, operator)
                    SELECT 9, 'bind', device_id, 'alice', 'lab', 'csv', 'batch-operator' FROM device WHERE id >= 10;
                    """
            )
        }
        try queue.close()
        let registry = try Registry(path: store.path, clock: ManualWallClock())
        #expect(try registry.bindings.list(account: "alice", limit: 30_000).count == 20_002)
        #expect(try registry.audit.entries(limit: 30_000).count == 20_002)
    }
}
