import Foundation
import GRDB
import NBGWCore
import Testing

@testable import Registry

/// The batch's set-wise statements against the one-row statements they stand for: lookups of a
/// chunk's devices in statements of 256, 16 and 1 rows (``BatchDecider/lookUp(_:db:)``), inserts
/// from bound VALUES rows (``BatchRowInsert``), and the batch's checkpoints off its commits.
@Suite("A batch's set-wise statements do exactly what one statement per row does")
struct BatchSetWiseTests {
    /// 700 devices straight into a new store (registering them one by one would test registration):
    /// `nb…n` with label `L…n`; every seventh bound to alice/lab; job 1 met device 5 on line 40.
    static func store(_ store: TestStore) throws -> Registry {
        let registry = try Registry(path: store.path)
        try registry.directory.addAccount(name: "alice", role: .owner)
        try registry.directory.addHome(name: "lab", owner: "alice")
        try registry.pool.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
                    INSERT INTO device (device_id, imei, product_id, label_code, registered_at, updated_at)
                    SELECT printf('nb%018d', i), printf('35%013d', i), 'meter', printf('L%011d', i), 0, 0 FROM n
                    """
            )
            try db.execute(
                sql: """
                    INSERT INTO binding (device_row, account_id, home_id, token_id, bound_at, source, operator)
                    SELECT id, 1, 1, NULL, 0, 'cli', NULL FROM device WHERE id % 7 = 0
                    """
            )
            try db.execute(
                sql: """
                    INSERT INTO batch_job (input_path, input_size, input_mtime_ns, report_path, started_at,
                        updated_at, next_offset, next_line)
                    VALUES ('in.csv', 1, 1, 'in.csv.report.csv', 0, 0, 0, 2)
                    """
            )
            try db.execute(sql: "INSERT INTO batch_job_device (device_row, job_id, line) VALUES (5, 1, 40)")
        }
        return registry
    }

    /// What the store knows about one row's device, by the one-row query the batch used before.
    static func lookUpOne(_ row: BatchRow, jobID: Int64, db: Database) throws -> String? {
        let select = """
            SELECT d.id, d.device_id, d.imei, d.product_id, b.account_id, b.home_id, h.name, s.line
            FROM device d LEFT JOIN binding b ON b.device_row = d.id LEFT JOIN home h ON h.id = b.home_id
            LEFT JOIN batch_job_device s ON s.job_id = ? AND s.device_row = d.id
            """
        let (column, key) =
            switch row.device {
            case .id(let id): ("device_id", id)
            case .labelCode(let code): ("label_code", code)
            case .imei(let imei): ("imei", imei)
            }
        return try Row.fetchOne(db, sql: select + " WHERE d.\(column) = ?", arguments: [jobID, key]).map {
            "\($0[0] as Int64) \($0[1] as String) \($0[2] as String) \($0[3] as String?) \($0[4] as Int64?) "
                + "\($0[5] as Int64?) \($0[6] as String?) \($0[7] as Int64?)"
        }
    }

    static func describe(_ lookup: BatchDecider.DeviceLookup?) -> String? {
        lookup.map {
            "\($0.row) \($0.deviceID) \($0.facts.imei) \($0.facts.productID) \($0.existing?.accountID) "
                + "\($0.existing?.homeID) \($0.existing.map(\.homeName)) \($0.firstLine.map(Int64.init))"
        }
    }

    @Test(
        "Chunk lookups find what one lookup per row finds, for every chunk size",
        arguments: [0, 1, 15, 16, 17, 255, 256, 257, 529, 700]
    )
    func lookupsAgree(count: Int) throws {
        let store = try TestStore()
        let registry = try Self.store(store)
        // Ids, labels and IMEIs interleaved, unknown keys, a device named twice (once by each key),
        // the device job 1 met, bound and free devices.
        var rows: [BatchRow] = (0..<count).map { index in
            let n = index + 1
            let device: BatchRow.Device =
                // Eight kinds: not seven, the period of the bound devices, or no row would reach one.
                switch index % 8 {
                case 0: .id(String(format: "nb%018d", n))
                case 1: .labelCode(String(format: "L%011d", n))
                case 2: .labelCode(String(format: "X%011d", n))
                case 3: .id(String(format: "nbunknown%011d", n))
                case 4: .imei(String(format: "35%013d", n))
                case 5: .imei(String(format: "99%013d", n))
                case 6: .id(String(format: "nb%018d", n))
                default: .labelCode(String(format: "L%011d", max(1, n - 7)))
                }
            return BatchRow(line: index + 2, device: device, accountName: "alice", homeName: "lab")
        }
        if count > 10 {
            rows[10] = BatchRow(
                line: 12,
                device: .id(String(format: "nb%018d", 5)),
                accountName: "alice",
                homeName: "lab"
            )
        }
        let decider = BatchDecider(registry: registry, jobID: 1, queueForCloud: false)
        let (setWise, oneByOne) = try registry.pool.read { db in
            (
                try decider.lookUp(rows, db: db).map(Self.describe),
                try rows.map { try Self.lookUpOne($0, jobID: 1, db: db) }
            )
        }
        #expect(setWise.count == count)
        for index in 0..<count {
            #expect(setWise[index] == oneByOne[index], "row \(index): \(rows[index].device)")
        }
        // The rows reach found, unknown, bound and met devices, or the comparison proves little.
        if count >= 257 {
            #expect(oneByOne.contains(nil))
            #expect(oneByOne.contains { $0?.contains("Optional(1) Optional(1) Optional(\"lab\")") == true })
            #expect(oneByOne.contains { $0?.hasSuffix("Optional(40)") == true })
        }
    }

    @Test(
        "Inserts from bound VALUES rows write every row once, for every count",
        arguments: [0, 1, 15, 16, 17, 255, 256, 257, 529]
    )
    func insertsEveryRow(count: Int) throws {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        let written = try registry.pool.write { db in
            try db.execute(sql: "CREATE TEMP TABLE t (k INTEGER, a INTEGER, b INTEGER)")
            let insert = try BatchRowInsert(
                db,
                "INSERT INTO t (k, a, b) SELECT ?1, column1, column2",
                constants: 1,
                arity: 2
            )
            let values = (0..<count).map { Int64($0) * 3 }
            try insert.run(count: count) {
                $0.bind(1, Int64(42))
            } row: { statement, index, parameter in
                statement.bind(parameter, values[index])
                statement.bind(parameter + 1, Int64(index))
            }
            return try Row.fetchAll(db, sql: "SELECT k, a, b FROM t ORDER BY b").map {
                [$0[0] as Int64?, $0[1] as Int64?, $0[2] as Int64?]
            }
        }
        #expect(written == (0..<count).map { [42, Int64($0) * 3, Int64($0)] as [Int64?] })
    }

    @Test("A batch runs with the writer's automatic checkpoint off and gives it back after")
    func checkpointsOffTheCommits() throws {
        let store = try TestStore()
        let registry = try Self.store(store)
        let input = Registry.BatchInput.driven(at: store.directory.appendingPathComponent("in.csv").path)
        let rows = (1...600).filter { $0 % 7 != 0 }.map { n in
            BatchRow(line: n + 1, device: .id(String(format: "nb%018d", n)), accountName: "alice", homeName: "lab")
        }
        let during = try registry.bindings.withBatchSession(dryRun: false) { session in
            let job = try session.openJob(input, restart: false)
            for start in stride(from: 0, to: rows.count, by: 100) {
                let chunk = Array(rows[start..<min(start + 100, rows.count)])
                _ = try session.bindChunk(chunk, operator: nil) { _ in (job, start + 100 >= rows.count) }
            }
            return try Int.fetchOne(session.db, sql: "PRAGMA wal_autocheckpoint")
        }
        #expect(during == 0)
        let after = try registry.pool.writeWithoutTransaction { db in
            try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint")
        }
        #expect(after == 1000)
        // The 100 devices bound before, and every row of the batch.
        #expect(
            try registry.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM binding") }
                == 100 + rows.count
        )
    }
}
