import Foundation
import GRDB
import NBGWCore

extension Registry {
    /// The cloud outbox (`cloud_outbox`, migration v3): the binding changes and registrations this
    /// gateway committed locally and has yet to hand to its cloud, each sent once under its
    /// idempotency key. Reached as `registry.outbox`; a bind's outbox row is written by the bind's
    /// own transaction (Bindings/), this is the queue's other half: enqueue, claim with a lease,
    /// complete, fail, requeue, read.
    public struct Outbox: Sendable {
        let registry: Registry
    }

    /// The cloud outbox (``Outbox``).
    public var outbox: Outbox { Outbox(registry: self) }
}

extension Registry {
    /// One row of the cloud outbox (schema: ``v3CloudOutbox``).
    public struct OutboxEntry: Sendable, Equatable {
        public enum Operation: String, Sendable, Codable, CaseIterable {
            case register
            case bind
            case unbind
        }

        public enum State: String, Sendable, Codable, CaseIterable {
            /// Waiting to be sent (first time, or again after a transient failure).
            case pending
            /// Claimed by a drainer until `leaseUntil`; after that, anyone may claim it again.
            case inflight
            /// The cloud accepted it; final.
            case done
            /// The cloud refused it for good; kept for the operator (`registry.outbox.requeue` retries it).
            case dead
        }

        public var id: Int64
        public var idempotencyKey: String
        public var operation: Operation
        /// What the work is about: the IMEI for `register`, the device id otherwise.
        public var subject: String
        /// The request, as JSON the cloud client wrote.
        public var payload: String
        public var state: State
        /// Claims so far (a crashed drainer's claim counts).
        public var attempts: Int
        public var createdAt: Date
        public var nextAttemptAt: Date
        public var leaseOwner: String?
        public var leaseUntil: Date?
        public var completedAt: Date?
        public var lastErrorCode: String?
        public var lastError: String?
        /// The cloud's answer, as JSON, once done.
        public var result: String?
    }

    /// Work to add to the outbox, in the caller's transaction.
    public struct OutboxRequest: Sendable, Equatable {
        public var operation: OutboxEntry.Operation
        public var subject: String
        public var payload: String
        public var idempotencyKey: String

        public init(
            operation: OutboxEntry.Operation,
            subject: String,
            payload: String,
            idempotencyKey: String = IdempotencyKey.make()
        ) {
            self.operation = operation
            self.subject = subject
            self.payload = payload
            self.idempotencyKey = idempotencyKey
        }

        /// The row for `payload`, under a fresh key (``IdempotencyKey/make()``): the one way rows
        /// get their JSON and their key.
        public init(_ payload: OutboxPayload) {
            self.init(operation: payload.operation, subject: payload.subject, payload: payload.json)
        }
    }

    // MARK: Enqueue

    /// Inserts a row inside the caller's transaction; returns its id.
    static func insertOutbox(_ db: Database, _ request: OutboxRequest, now: Int64) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO cloud_outbox (idempotency_key, operation, subject, payload, created_at, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [request.idempotencyKey, request.operation.rawValue, request.subject, request.payload, now, now]
        )
        return db.lastInsertedRowID
    }

    // MARK: Claim, complete, fail

    static func markClaimed(_ db: Database, id: Int64, owner: String, now: Int64, lease: Duration) throws -> OutboxEntry
    {
        try db.execute(
            sql: """
                UPDATE cloud_outbox SET state = 'inflight', lease_owner = ?, lease_until = ?, attempts = attempts + 1
                WHERE id = ?
                """,
            arguments: [owner, now + max(1, lease.milliseconds), id]
        )
        return try fetchOutbox(db, id: id)!
    }

    static func markDone(_ db: Database, id: Int64, owner: String, result: String, now: Int64) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE cloud_outbox SET state = 'done', completed_at = ?, result = ?, lease_owner = NULL,
                    lease_until = NULL, last_error_code = NULL, last_error = NULL
                WHERE id = ? AND state = 'inflight' AND lease_owner = ?
                """,
            arguments: [now, result, id, owner]
        )
        return db.changesCount == 1
    }

    static func fetchOutbox(_ db: Database, id: Int64) throws -> OutboxEntry? {
        try Row.fetchOne(db, sql: "SELECT * FROM cloud_outbox WHERE id = ?", arguments: [id]).map(OutboxEntry.init)
    }
}

extension Registry.OutboxEntry {
    init(row: Row) {
        self.init(
            id: row["id"],
            idempotencyKey: row["idempotency_key"],
            operation: Operation(rawValue: row["operation"]) ?? .register,
            subject: row["subject"],
            payload: row["payload"],
            state: State(rawValue: row["state"]) ?? .pending,
            attempts: row["attempts"],
            createdAt: Date(millis: row["created_at"]),
            nextAttemptAt: Date(millis: row["next_attempt_at"]),
            leaseOwner: row["lease_owner"],
            leaseUntil: (row["lease_until"] as Int64?).map(Date.init(millis:)),
            completedAt: (row["completed_at"] as Int64?).map(Date.init(millis:)),
            lastErrorCode: row["last_error_code"],
            lastError: row["last_error"],
            result: row["result"]
        )
    }
}

extension Registry.Outbox {
    /// Adds work in its own transaction (for work with no local change to commit with it, like a
    /// registration whose device id the cloud has yet to mint).
    ///
    /// - Parameter supersedeUnfinished: retire pending rows with the same operation and subject
    ///   (as dead, code `SUPERSEDED`): a repeated `devices register` sends the newest
    ///   identity once instead of every stale one. Rows in flight are left alone; the new row waits
    ///   behind them.
    public func enqueue(
        _ request: Registry.OutboxRequest,
        supersedeUnfinished: Bool = false
    ) throws(NBGWError) -> Registry.OutboxEntry {
        let now = registry.nowMillis()
        return try registry.write { db in
            let id = try Registry.insertOutbox(db, request, now: now)
            if supersedeUnfinished {
                try db.execute(
                    sql: """
                        UPDATE cloud_outbox SET state = 'dead', completed_at = ?, last_error_code = 'SUPERSEDED',
                            last_error = 'superseded by row #' || ?
                        WHERE operation = ? AND subject = ? AND id < ? AND state = 'pending'
                        """,
                    arguments: [now, id, request.operation.rawValue, request.subject, id]
                )
            }
            return try Registry.fetchOutbox(db, id: id)!
        }
    }

    /// Claims up to `limit` rows that are due: pending with `next_attempt_at` passed, or in flight
    /// with an expired lease (their drainer died). A row waits while an earlier row for the same
    /// subject is unfinished, so a device's bind and unbind reach the cloud in order.
    ///
    /// - Parameter lease: how long the claim holds. Longer than one call with all its retries;
    ///   when it runs out another drainer may send the row again, which its idempotency key makes
    ///   harmless.
    public func claim(owner: String, lease: Duration, limit: Int = 16) throws(NBGWError) -> [Registry.OutboxEntry] {
        let now = registry.nowMillis()
        return try registry.write { db in
            let ids = try Int64.fetchAll(
                db,
                sql: """
                    SELECT o.id FROM cloud_outbox o
                    WHERE ((o.state = 'pending' AND o.next_attempt_at <= ?)
                        OR (o.state = 'inflight' AND o.lease_until <= ?))
                    AND NOT EXISTS (
                        SELECT 1 FROM cloud_outbox p
                        WHERE p.subject = o.subject AND p.id < o.id AND p.state IN ('pending', 'inflight'))
                    ORDER BY o.id LIMIT ?
                    """,
                arguments: [now, now, limit]
            )
            return try ids.map { id in
                try Registry.markClaimed(db, id: id, owner: owner, now: now, lease: lease)
            }
        }
    }

    /// Claims one row by id (the command that just enqueued it sends it at once). Nil when the row
    /// is finished, not yet due, leased to another live drainer, or waiting behind an earlier row.
    public func claim(id: Int64, owner: String, lease: Duration) throws(NBGWError) -> Registry.OutboxEntry? {
        let now = registry.nowMillis()
        return try registry.write { db in
            let due = try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM cloud_outbox o
                    WHERE o.id = ? AND ((o.state = 'pending' AND o.next_attempt_at <= ?)
                        OR (o.state = 'inflight' AND o.lease_until <= ?))
                    AND NOT EXISTS (
                        SELECT 1 FROM cloud_outbox p
                        WHERE p.subject = o.subject AND p.id < o.id AND p.state IN ('pending', 'inflight')))
                    """,
                arguments: [id, now, now]
            )
            guard due == true else { return nil }
            return try Registry.markClaimed(db, id: id, owner: owner, now: now, lease: lease)
        }
    }

    /// Marks a claimed row done with the cloud's answer. Returns false, changing nothing, when the
    /// claim was lost (the lease ran out and another drainer took the row): the row is then done by
    /// that drainer, once.
    @discardableResult
    public func complete(id: Int64, owner: String, result: String) throws(NBGWError) -> Bool {
        let now = registry.nowMillis()
        return try registry.write { db in try Registry.markDone(db, id: id, owner: owner, result: result, now: now) }
    }

    /// Gives a claimed row back after a failure: pending again after `retryAfter`, or dead when
    /// `retryAfter` is nil (the cloud refused it for good). Returns false when the claim was lost.
    @discardableResult
    public func fail(
        id: Int64,
        owner: String,
        code: String,
        message: String,
        retryAfter: Duration?
    ) throws(NBGWError) -> Bool {
        let now = registry.nowMillis()
        return try registry.write { db in
            if let retryAfter {
                try db.execute(
                    sql: """
                        UPDATE cloud_outbox SET state = 'pending', next_attempt_at = ?, lease_owner = NULL,
                            lease_until = NULL, last_error_code = ?, last_error = ?
                        WHERE id = ? AND state = 'inflight' AND lease_owner = ?
                        """,
                    arguments: [now + max(0, retryAfter.milliseconds), code, String(message.prefix(2048)), id, owner]
                )
            } else {
                try db.execute(
                    sql: """
                        UPDATE cloud_outbox SET state = 'dead', completed_at = ?, lease_owner = NULL,
                            lease_until = NULL, last_error_code = ?, last_error = ?
                        WHERE id = ? AND state = 'inflight' AND lease_owner = ?
                        """,
                    arguments: [now, code, String(message.prefix(2048)), id, owner]
                )
            }
            return db.changesCount == 1
        }
    }

    /// Puts a dead row back in the queue (after the operator fixed the cause). False if not dead.
    @discardableResult
    public func requeue(id: Int64) throws(NBGWError) -> Bool {
        let now = registry.nowMillis()
        return try registry.write { db in
            try db.execute(
                sql: """
                    UPDATE cloud_outbox SET state = 'pending', completed_at = NULL, next_attempt_at = ?
                    WHERE id = ? AND state = 'dead'
                    """,
                arguments: [now, id]
            )
            return db.changesCount == 1
        }
    }

    public func entry(id: Int64) throws(NBGWError) -> Registry.OutboxEntry? {
        try registry.read { db in try Registry.fetchOutbox(db, id: id) }
    }

    /// Rows in the given states, oldest first.
    public func entries(
        states: [Registry.OutboxEntry.State] = Registry.OutboxEntry.State.allCases,
        limit: Int = 1000
    ) throws(NBGWError) -> [Registry.OutboxEntry] {
        guard !states.isEmpty else { return [] }
        return try registry.read { db in
            // One bound placeholder per state; the states themselves are bound values.
            let placeholders = Array(repeating: "?", count: states.count).joined(separator: ", ")
            var arguments = StatementArguments(states.map(\.rawValue))
            _ = arguments.append(contentsOf: [limit])
            return try Row.fetchAll(
                db,
                sql: "SELECT * FROM cloud_outbox WHERE state IN (\(placeholders)) ORDER BY id LIMIT ?",
                arguments: arguments
            ).map(Registry.OutboxEntry.init)
        }
    }

    /// How many rows are in each state (absent states: zero).
    public func counts() throws(NBGWError) -> [Registry.OutboxEntry.State: Int] {
        try registry.read { db in
            var counts: [Registry.OutboxEntry.State: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, count(*) AS n FROM cloud_outbox GROUP BY state") {
                if let state = Registry.OutboxEntry.State(rawValue: row["state"]) {
                    counts[state] = row["n"]
                }
            }
            return counts
        }
    }

    /// Rows the cloud has yet to accept that a drainer will send: `pending` and `inflight` (the
    /// daemon's `nbgw_cloud_outbox_pending`). Counted on the `cloud_outbox_due` index, so the
    /// finished rows, however many, are never read.
    public func pendingCount() throws(NBGWError) -> Int {
        try registry.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM cloud_outbox WHERE state IN ('pending', 'inflight')") ?? 0
        }
    }
}
