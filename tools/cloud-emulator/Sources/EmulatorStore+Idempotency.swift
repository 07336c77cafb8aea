import GRDB

extension EmulatorStore {
    /// A stored answer for an idempotency key.
    enum Replay {
        /// No answer yet: process the request.
        case none
        /// The same request was answered before: send this result again.
        case result(String)
        /// The key was used for a different request.
        case conflict
    }

    /// Looks up `key` for `client` (in the request's transaction).
    static func replay(_ db: Database, client: String, key: String, requestHash: String) throws -> Replay {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT request_hash, response FROM idempotency WHERE client_id = ? AND key = ?",
                arguments: [client, key]
            )
        else { return .none }
        return row["request_hash"] as String == requestHash ? .result(row["response"]) : .conflict
    }

    /// Keeps a successful answer. Why only successes: a refusal changed nothing, so a retry under
    /// the same key may legitimately succeed later (a pairing token issued meanwhile).
    static func remember(
        _ db: Database,
        client: String,
        key: String,
        requestHash: String,
        response: String,
        now: Int64
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO idempotency (client_id, key, request_hash, response, created_at) VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [client, key, requestHash, response, now]
        )
    }
}
