import Foundation
import GRDB
import NBGWCore

/// The console's people and their trail (migration v11, docs/console.md).
extension Registry {
    /// The web console's side of the store (docs/console.md): its operators (scrypt hashes, lock-out),
    /// their trail, and the paged list queries its pages show. Reached as `registry.console`.
    public struct Console: Sendable {
        let registry: Registry
    }

    /// The console's operators, trail and list queries (``Console``).
    public var console: Console { Console(registry: self) }
}

extension Registry {
    /// One row of the console's append-only trail.
    public struct ConsoleAuditEntry: Sendable, Equatable, Codable {
        public var id: Int64
        public var at: Date
        public var event: String
        public var `operator`: String
        public var clientAddress: String
        public var deviceID: String?
        public var code: String?
        public var detail: String?
    }

    /// The operator's columns, with the refusals and lock-out summed up over the client addresses
    /// that tried their name (`console_signin_failure`, migration v13): the most refusals in a row
    /// from one address, and the latest lock's end.
    static let consoleOperatorColumns = """
        o.name, o.role, o.password_hash, o.created_at, o.last_signin_at,
        coalesce((SELECT max(f.failures) FROM console_signin_failure f WHERE f.name = o.name), 0) AS failed_attempts,
        (SELECT max(f.locked_until) FROM console_signin_failure f WHERE f.name = o.name) AS locked_until
        """

    static func fetchConsoleOperator(_ db: Database, name: String) throws -> ConsoleOperator? {
        try Row.fetchOne(
            db,
            sql: "SELECT \(consoleOperatorColumns) FROM console_operator o WHERE o.name = ?",
            arguments: [name]
        )
        .map(ConsoleOperator.init(row:))
    }
}

extension ConsoleOperator {
    init(row: Row) {
        let locked: Int64? = row["locked_until"]
        let last: Int64? = row["last_signin_at"]
        self.init(
            name: row["name"],
            role: Role(rawValue: row["role"]) ?? .binder,
            passwordHash: row["password_hash"],
            failedAttempts: row["failed_attempts"],
            lockedUntil: locked.map(Date.init(millis:)),
            createdAt: Date(millis: row["created_at"]),
            lastSignInAt: last.map(Date.init(millis:))
        )
    }
}

extension Registry.Console {
    /// Adds a console operator, or replaces the password and role of an existing one when
    /// `replace` (which also lifts a lock-out, and ends their sessions: the schema's trigger).
    ///
    /// - Throws: `INVALID_ARGUMENT` for a bad name, or when the operator exists and not `replace`.
    @discardableResult
    public func addOperator(
        name: String,
        role: ConsoleOperator.Role,
        passwordHash: String,
        replace: Bool = false
    ) throws(NBGWError) -> ConsoleOperator {
        try Registry.validateName(name, what: "operator name")
        let now = registry.nowMillis()
        return try registry.write { db in
            let exists =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM console_operator WHERE name = ?)",
                    arguments: [name]
                ) ?? false
            if exists {
                guard replace else {
                    throw NBGWError(
                        .invalidArgument,
                        "console operator \(name.escapedForDisplay()) exists; pass --replace to set a new password"
                    )
                }
                try db.execute(
                    sql: """
                        UPDATE console_operator SET role = ?, password_hash = ?, failed_attempts = 0,
                            locked_until = NULL, updated_at = ? WHERE name = ?
                        """,
                    arguments: [role.rawValue, passwordHash, now, name]
                )
                try db.execute(sql: "DELETE FROM console_signin_failure WHERE name = ?", arguments: [name])
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO console_operator (name, role, password_hash, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: [name, role.rawValue, passwordHash, now, now]
                )
            }
            return try Registry.fetchConsoleOperator(db, name: name)!
        }
    }

    /// The operator named `name`, or nil.
    public func findOperator(named name: String) throws(NBGWError) -> ConsoleOperator? {
        try registry.read { db in try Registry.fetchConsoleOperator(db, name: name) }
    }

    /// Every console operator, by name.
    public func operators() throws(NBGWError) -> [ConsoleOperator] {
        try registry.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Registry.consoleOperatorColumns) FROM console_operator o ORDER BY o.name"
            )
            .map(ConsoleOperator.init(row:))
        }
    }

    /// Removes an operator (their trail stays). Returns false when there was none.
    @discardableResult
    public func removeOperator(named name: String) throws(NBGWError) -> Bool {
        try registry.write { db in
            try db.execute(sql: "DELETE FROM console_operator WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    /// Removes an operator's refusal counts from every address and lifts their lock-outs (`nbgw
    /// operators unlock`). Returns false when there is no such operator.
    @discardableResult
    public func unlockOperator(named name: String) throws(NBGWError) -> Bool {
        try registry.write { db in
            try db.execute(sql: "DELETE FROM console_signin_failure WHERE name = ?", arguments: [name])
            try db.execute(
                sql: "UPDATE console_operator SET failed_attempts = 0, locked_until = NULL WHERE name = ?",
                arguments: [name]
            )
            return db.changesCount > 0
        }
    }

    /// Appends one row to the console's trail.
    public func recordAction(
        _ event: String,
        operator: String,
        clientAddress: String,
        deviceID: String? = nil,
        code: String? = nil,
        detail: String? = nil
    ) throws(NBGWError) {
        let now = registry.nowMillis()
        try registry.write { db in
            try db.execute(
                sql: """
                    INSERT INTO console_audit (at, event, operator, client_address, device_id, code, detail)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    now, String(event.prefix(64)), String(`operator`.prefix(128)), String(clientAddress.prefix(128)),
                    deviceID, code.map { String($0.prefix(64)) }, detail.map { String($0.prefix(1024)) },
                ]
            )
        }
    }

    /// The console's trail, newest first; for one device when `deviceID` is set.
    public func audit(deviceID: String? = nil, limit: Int = 200) throws(NBGWError) -> [Registry.ConsoleAuditEntry] {
        try registry.read { db in
            let rows: [Row]
            if let deviceID {
                rows = try Row.fetchAll(
                    db,
                    sql: "SELECT * FROM console_audit WHERE device_id = ? ORDER BY id DESC LIMIT ?",
                    arguments: [deviceID, limit]
                )
            } else {
                rows = try Row.fetchAll(
                    db,
                    sql: "SELECT * FROM console_audit ORDER BY id DESC LIMIT ?",
                    arguments: [limit]
                )
            }
            return rows.map { row in
                Registry.ConsoleAuditEntry(
                    id: row["id"],
                    at: Date(millis: row["at"]),
                    event: row["event"],
                    operator: row["operator"],
                    clientAddress: row["client_address"],
                    deviceID: row["device_id"],
                    code: row["code"],
                    detail: row["detail"]
                )
            }
        }
    }
}
