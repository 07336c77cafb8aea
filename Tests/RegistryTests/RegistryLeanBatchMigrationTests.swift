import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import TestClocks
import Testing

@testable import Registry

/// Migration v12: a binding's home and account are one foreign key to the home's owner, and a CSV
/// bind's audit is its job's row. Same rules, same trail, fewer writes.
@Suite("Registry: migration v12 keeps every rule and the whole trail with half a batch bind's writes")
struct RegistryLeanBatchMigrationTests {
    /// A store migrated to v11, written the way v11's batch wrote: alice (owner) with home lab, bob
    /// (owner) with home bobs, gus a guest; dev-1 bound by batch job 1 on line 2 with its audit row,
    /// dev-2 met by the job and refused (a batch_job_device row, no binding), dev-3 free.
    static func storeAtV11() throws -> TestStore {
        let store = try TestStore()
        let queue = try DatabaseQueue(path: store.path)
        try Registry.migrator.migrate(queue, upTo: "v11-console-operators")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO account (id, name, role, created_at) VALUES
                        (1, 'alice', 'owner', 0), (2, 'bob', 'owner', 0), (3, 'gus', 'guest', 0);
                    INSERT INTO home (id, name, owner_account_id, created_at) VALUES (1, 'lab', 1, 0), (2, 'bobs', 2, 0);
                    INSERT INTO device (id, device_id, imei, label_code, registered_at, updated_at) VALUES
                        (1, 'dev-1', '490154203237518', 'LABEL0001', 0, 0),
                        (2, 'dev-2', '356938035643809', 'LABEL0002', 0, 0),
                        (3, 'dev-3', '353918051234563', 'LABEL0003', 0, 0);
                    INSERT INTO batch_job (id, input_path, input_size, input_mtime_ns, report_path, started_at,
                        updated_at, finished_at, next_offset, next_line)
                        VALUES (1, '/in.csv', 10, 1, '/in.csv.report.csv', 0, 5, 5, 10, 4);
                    INSERT INTO batch_job_device (job_id, device_row, line) VALUES (1, 1, 2), (1, 2, 3);
                    INSERT INTO binding VALUES (1, 1, 1, NULL, 5, 'csv', 'op');
                    INSERT INTO audit_log (at, event, device_id, imei, account, home, source, operator, detail)
                        VALUES (5, 'bind', 'dev-1', '490154203237518', 'alice', 'lab', 'csv', 'op', 'job#1 line 2');
                    """
            )
        }
        try queue.close()
        return store
    }

    /// Raw SQL the way a script would write, on its own connection (foreign keys on, as GRDB and
    /// every nbgw connection have them).
    func raw(_ path: String, _ sql: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql) }
    }

    @Test("Rows and the trail survive; the two binding triggers are a foreign key; batch rows are keyed by device")
    func upgradesAStoreWrittenByV11() throws {
        let store = try Self.storeAtV11()
        let registry = try Registry(path: store.path, clock: ManualWallClock())
        #expect(try registry.bindings.list(account: "alice").map(\.deviceID) == ["dev-1"])
        // The batch bind written before v12 keeps its audit_log row and shows once.
        let trail = try registry.audit.entries(deviceID: "dev-1")
        #expect(trail.map(\.id) == [1])
        #expect(trail.first?.detail == "job#1 line 2")
        try registry.pool.read { db in
            let triggers = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name IN ('binding', 'home')"
            )
            #expect(
                Set(triggers) == [
                    "binding_product_allowed", "binding_is_immutable", "home_owner_has_owner_role", "home_owner_change",
                ]
            )
            let keys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(binding)").map {
                "\($0["table"] as String).\($0["to"] as String)<-\($0["from"] as String)"
            }
            #expect(
                Set(keys) == [
                    "device.id<-device_row", "pairing_token.id<-token_id", "home.id<-home_id",
                    "home.owner_account_id<-account_id",
                ]
            )
            let primaryKey = try Row.fetchAll(db, sql: "PRAGMA index_info(sqlite_autoindex_batch_job_device_1)")
                .map { $0["name"] as String }
            #expect(primaryKey == ["device_row", "job_id"])
            let met = try Row.fetchAll(db, sql: "SELECT * FROM batch_job_device ORDER BY line")
            #expect(met.map { $0["line"] as Int } == [2, 3])
            #expect(met.allSatisfy { ($0["bound_at"] as Int64?) == nil })
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }
    }

    @Test("The schema still refuses a guest's binding, another owner's home, and a home handed to a guest")
    func ownerRulesHoldWithoutTheTriggers() throws {
        let store = try Self.storeAtV11()
        _ = try Registry(path: store.path, clock: ManualWallClock())
        // gus (a guest) into lab (alice's): the pair (lab, gus) is no home's owner.
        #expect(throws: DatabaseError.self) {
            try raw(store.path, "INSERT INTO binding VALUES (3, 3, 1, NULL, 9, 'cli', 'op')")
        }
        // alice into bobs.
        #expect(throws: DatabaseError.self) {
            try raw(store.path, "INSERT INTO binding VALUES (3, 1, 2, NULL, 9, 'cli', 'op')")
        }
        // A home of nobody, an account of no home.
        #expect(throws: DatabaseError.self) {
            try raw(store.path, "INSERT INTO binding VALUES (3, 1, 99, NULL, 9, 'cli', 'op')")
        }
        #expect(throws: DatabaseError.self) {
            try raw(store.path, "INSERT INTO binding VALUES (3, 99, 1, NULL, 9, 'cli', 'op')")
        }
        // A home cannot pass to a guest, nor away from the owner its bindings name.
        #expect(throws: DatabaseError.self) { try raw(store.path, "UPDATE home SET owner_account_id = 3 WHERE id = 2") }
        #expect(throws: DatabaseError.self) { try raw(store.path, "UPDATE home SET owner_account_id = 2 WHERE id = 1") }
        // The owner of an owned home cannot become a guest (v1's trigger, unchanged).
        #expect(throws: DatabaseError.self) { try raw(store.path, "UPDATE account SET role = 'guest' WHERE id = 2") }
        // What the rules allow still goes in: bob into his own home.
        try raw(store.path, "INSERT INTO binding VALUES (3, 2, 2, NULL, 9, 'cli', 'op')")
    }

    @Test("A batch bind is one batch_job_device row, read in the trail as before, and append-only")
    func batchBindIsItsJobRow() throws {
        let store = try Self.storeAtV11()
        let registry = try Registry(path: store.path, clock: ManualWallClock())
        let input = Registry.BatchInput.driven(
            at: store.directory.appendingPathComponent("second.csv").path,
            operator: "line-7"
        )
        let (job, outcomes) = try registry.bindings.withBatchSession(dryRun: false) { session in
            let job = try session.openJob(input, restart: false)
            let outcomes = try session.bindChunk(
                [
                    BatchRow(line: 2, device: .id("dev-3"), accountName: "bob", homeName: "bobs"),
                    BatchRow(line: 3, device: .id("dev-2"), accountName: "gus", homeName: "lab"),
                ],
                operator: "line-7"
            ) { _ in (job, true) }
            return (job, outcomes)
        }
        #expect(outcomes.map(\.isBound) == [true, false])
        // No audit_log row for it: its job's row is its audit.
        let logged = try registry.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM audit_log WHERE device_id = 'dev-3'")
        }
        #expect(logged == 0)
        let trail = try registry.audit.entries(deviceID: "dev-3")
        #expect(trail.count == 1)
        let entry = try #require(trail.first)
        #expect(entry.id == -(job.id * 4_294_967_296 + 2))
        #expect(entry.event == "bind" && entry.source == "csv" && entry.operator == "line-7")
        #expect(entry.account == "bob" && entry.home == "bobs" && entry.imei == "353918051234563")
        #expect(entry.detail == "job#\(job.id) line 2")
        #expect(entry.at == ManualWallClock().now())
        // The refused row is met, not audited as a bind.
        #expect(try registry.audit.entries(deviceID: "dev-2").isEmpty)
        // Append-only, as the audit log is; the job cannot take its rows with it.
        #expect(throws: DatabaseError.self) {
            try raw(store.path, "UPDATE batch_job_device SET operator = 'someone else' WHERE device_row = 3")
        }
        #expect(throws: DatabaseError.self) { try raw(store.path, "DELETE FROM batch_job_device WHERE device_row = 3") }
        #expect(throws: DatabaseError.self) { try raw(store.path, "DELETE FROM batch_job WHERE id = \(job.id)") }
        // A row that bound nothing is no audit: it may go (what a job cleanup would do).
        try raw(store.path, "DELETE FROM batch_job_device WHERE device_row = 2 AND job_id = \(job.id)")
    }

    @Test("The trail interleaves the audit log and batch binds by time, oldest first")
    func trailOrder() throws {
        let store = try Self.storeAtV11()
        let clock = ManualWallClock()
        let registry = try Registry(path: store.path, clock: clock)
        let dev3 = try DeviceID("dev-3")
        _ = try registry.bindings.bind(BindCommand(deviceID: dev3, account: "alice", home: "lab", source: .cli))
        _ = try registry.bindings.unbind(deviceID: "dev-3", source: .cli)
        clock.advance(by: 1)
        let input = Registry.BatchInput.driven(at: store.directory.appendingPathComponent("third.csv").path)
        _ = try registry.bindings.withBatchSession(dryRun: false) { session in
            let job = try session.openJob(input, restart: false)
            return try session.bindChunk(
                [BatchRow(line: 2, device: .id("dev-3"), accountName: "bob", homeName: "bobs")],
                operator: nil
            ) { _ in (job, true) }
        }
        clock.advance(by: 1)
        _ = try registry.bindings.unbind(deviceID: "dev-3", source: .cli)
        let events = try registry.audit.entries(deviceID: "dev-3").map { "\($0.event)/\($0.source ?? "-")" }
        #expect(events == ["bind/cli", "unbind/cli", "bind/csv", "unbind/cli"])
    }
}

extension BatchRowOutcome {
    fileprivate var isBound: Bool {
        if case .bound = self { return true }
        return false
    }
}
