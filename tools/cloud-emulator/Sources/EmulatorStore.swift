import Foundation
import GRDB
import TuyaCloud

/// The emulator's cloud state in its own SQLite file: tokens, modules, homes, pairing tokens,
/// bindings, pairing outcomes, idempotency records and an effect log. One serial queue: the
/// emulator is a test double, and serialising makes every request atomic, replays included.
public final class EmulatorStore: Sendable {
    public let path: String
    let queue: DatabaseQueue
    /// The one project it serves.
    let credentials: CloudCredentials

    public init(path: String, credentials: CloudCredentials) throws {
        self.path = path
        self.credentials = credentials
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.label = "nbgw.cloud-emulator"
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try EmulatorStore.migrator.migrate(queue)
    }

    /// Runs `body` in a write transaction.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.write(body)
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.read(body)
    }

    /// Requests, replays and effects so far.
    public func stats(faultsFired: [String: Int] = [:]) throws -> EmulatorStats {
        try read { db in
            let requests = try Int.fetchOne(db, sql: "SELECT count(*) FROM request_log") ?? 0
            let replays = try Int.fetchOne(db, sql: "SELECT count(*) FROM request_log WHERE replayed = 1") ?? 0
            var effects: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT operation, count(*) AS n FROM effect GROUP BY operation") {
                effects[row["operation"]] = row["n"]
            }
            return EmulatorStats(requests: requests, replays: replays, effects: effects, faultsFired: faultsFired)
        }
    }

    /// Effects recorded for one subject (a device id or IMEI), oldest first: `(operation, idempotency key)`.
    public func effects(subject: String) throws -> [(operation: String, idempotencyKey: String?)] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT operation, idempotency_key FROM effect WHERE subject = ? ORDER BY id",
                arguments: [subject]
            ).map { ($0["operation"], $0["idempotency_key"]) }
        }
    }

    static func recordEffect(_ db: Database, operation: String, subject: String, key: String?, at: Int64) throws {
        try db.execute(
            sql: "INSERT INTO effect (at, operation, subject, idempotency_key) VALUES (?, ?, ?, ?)",
            arguments: [at, operation, subject, key]
        )
    }

    func logRequest(
        at: Int64,
        method: String,
        route: String,
        status: Int,
        code: Int?,
        key: String?,
        replayed: Bool,
        fault: String?
    ) {
        _ = try? write { db in
            try db.execute(
                sql: """
                    INSERT INTO request_log (at, method, route, status, code, idempotency_key, replayed, fault)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [at, method, route, status, code, key, replayed ? 1 : 0, fault]
            )
        }
    }
}
