import Foundation
import GRDB
import NBGWCore

/// The console's sessions (migration v13): started at sign-in, read on every request, ended at
/// sign-out, at their idle or absolute end, and by the schema's triggers whenever their operator's
/// password, role or name changes or the operator is removed.
extension Registry.Console {
    /// Stores a new session for operator `name`.
    ///
    /// - Throws: `UNAUTHENTICATED` when the operator no longer exists (removed between the
    ///   password check and now).
    public func startSession(
        digest: String,
        operatorName name: String,
        csrfToken: String,
        clientAddress: String,
        lifetime: Duration
    ) throws(NBGWError) -> ConsoleSessionRecord {
        let now = registry.nowMillis()
        let expires = now + lifetime.inMilliseconds
        return try registry.write { db in
            // Sessions past their absolute end go at each sign-in: the table holds live ones only.
            try db.execute(sql: "DELETE FROM console_session WHERE expires_at <= ?", arguments: [now])
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT id, role FROM console_operator WHERE name = ?",
                    arguments: [name]
                )
            else {
                throw NBGWError(.unauthenticated, "console operator \(name.escapedForDisplay()) no longer exists")
            }
            try db.execute(
                sql: """
                    INSERT INTO console_session
                        (digest, operator_id, csrf_token, client_address, created_at, last_seen_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    digest, row["id"] as Int64, csrfToken, String(clientAddress.prefix(128)), now, now, expires,
                ]
            )
            return ConsoleSessionRecord(
                digest: digest,
                operatorName: name,
                role: ConsoleOperator.Role(rawValue: row["role"]) ?? .binder,
                csrfToken: csrfToken,
                clientAddress: clientAddress,
                createdAt: Date(millis: now),
                lastSeenAt: Date(millis: now),
                expiresAt: Date(millis: expires)
            )
        }
    }

    /// The live session with `digest`, or nil: none, past its absolute end, or unused for
    /// `idleTimeout` (an ended one is deleted). One indexed read; no write.
    public func session(digest: String, idleTimeout: Duration) throws(NBGWError) -> ConsoleSessionRecord? {
        let now = registry.nowMillis()
        let found = try registry.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT s.digest, o.name, o.role, s.csrf_token, s.client_address, s.created_at,
                        s.last_seen_at, s.expires_at
                    FROM console_session s JOIN console_operator o ON o.id = s.operator_id
                    WHERE s.digest = ?
                    """,
                arguments: [digest]
            )
        }
        guard let row = found else { return nil }
        let lastSeen: Int64 = row["last_seen_at"]
        let expires: Int64 = row["expires_at"]
        guard now < expires, now - lastSeen < idleTimeout.inMilliseconds else {
            try endSession(digest: digest)
            return nil
        }
        return ConsoleSessionRecord(
            digest: row["digest"],
            operatorName: row["name"],
            role: ConsoleOperator.Role(rawValue: row["role"]) ?? .binder,
            csrfToken: row["csrf_token"],
            clientAddress: row["client_address"],
            createdAt: Date(millis: row["created_at"]),
            lastSeenAt: Date(millis: lastSeen),
            expiresAt: Date(millis: expires)
        )
    }

    /// Records that the session was used now.
    public func touchSession(digest: String) throws(NBGWError) {
        let now = registry.nowMillis()
        try registry.write { db in
            try db.execute(
                sql: "UPDATE console_session SET last_seen_at = max(last_seen_at, ?) WHERE digest = ?",
                arguments: [now, digest]
            )
        }
    }

    /// Ends one session (sign-out). Returns false when there was none.
    @discardableResult
    public func endSession(digest: String) throws(NBGWError) -> Bool {
        try registry.write { db in
            try db.execute(sql: "DELETE FROM console_session WHERE digest = ?", arguments: [digest])
            return db.changesCount > 0
        }
    }

    /// Ends every session of operator `name`; returns how many there were.
    @discardableResult
    public func endSessions(operatorName name: String) throws(NBGWError) -> Int {
        try registry.write { db in
            try db.execute(
                sql: """
                    DELETE FROM console_session
                    WHERE operator_id = (SELECT id FROM console_operator WHERE name = ?)
                    """,
                arguments: [name]
            )
            return db.changesCount
        }
    }

    /// Live sessions (not past their absolute end), per operator name.
    public func sessionCounts() throws(NBGWError) -> [String: Int] {
        let now = registry.nowMillis()
        return try registry.read { db in
            var counts: [String: Int] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT o.name, count(*) AS n FROM console_session s
                    JOIN console_operator o ON o.id = s.operator_id
                    WHERE s.expires_at > ? GROUP BY o.name
                    """,
                arguments: [now]
            )
            for row in rows { counts[row["name"]] = row["n"] }
            return counts
        }
    }
}
