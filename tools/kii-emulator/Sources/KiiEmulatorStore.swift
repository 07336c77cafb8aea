import Crypto
import Foundation
import GRDB

/// The Kii emulator's state in its own SQLite file: users and their tokens, things (with a hash
/// of their password and their access token), owners, an effect log and a request log. One serial
/// queue: every request is atomic.
public final class KiiEmulatorStore: Sendable {
    public let path: String
    let queue: DatabaseQueue

    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.label = "nbgw.kii-emulator"
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try KiiEmulatorStore.migrator.migrate(queue)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user (
                        id TEXT PRIMARY KEY NOT NULL,
                        login_name TEXT NOT NULL UNIQUE
                    ) STRICT;
                    CREATE TABLE token (
                        token TEXT PRIMARY KEY NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('user', 'thing')),
                        subject TEXT NOT NULL
                    ) STRICT;
                    CREATE TABLE thing (
                        id TEXT PRIMARY KEY NOT NULL,
                        vendor_thing_id TEXT NOT NULL UNIQUE,
                        password_sha256 TEXT NOT NULL,
                        thing_type TEXT NOT NULL,
                        properties TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    ) STRICT;
                    CREATE TABLE owner (
                        thing_id TEXT NOT NULL REFERENCES thing (id),
                        user_id TEXT NOT NULL REFERENCES user (id),
                        PRIMARY KEY (thing_id, user_id)
                    ) STRICT;
                    CREATE TABLE effect (
                        id INTEGER PRIMARY KEY,
                        at INTEGER NOT NULL,
                        operation TEXT NOT NULL,
                        subject TEXT NOT NULL
                    ) STRICT;
                    CREATE TABLE request_log (
                        id INTEGER PRIMARY KEY,
                        at INTEGER NOT NULL,
                        method TEXT NOT NULL,
                        route TEXT NOT NULL,
                        status INTEGER NOT NULL,
                        error_code TEXT,
                        fault TEXT
                    ) STRICT;
                    """
            )
        }
        return migrator
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T { try queue.write(body) }

    func read<T>(_ body: (Database) throws -> T) throws -> T { try queue.read(body) }

    // MARK: Users and tokens

    /// The user with this login name, created if missing; `id` is used when creating (else a new
    /// one), and `token`, when given, is made one of its access tokens.
    @discardableResult
    public func ensureUser(loginName: String, id: String? = nil, token: String? = nil) throws -> String {
        try write { db in
            let userID: String
            if let existing = try String.fetchOne(
                db,
                sql: "SELECT id FROM user WHERE login_name = ?",
                arguments: [loginName]
            ) {
                userID = existing
            } else {
                userID = id ?? KiiEmulatorStore.newUserID()
                try db.execute(sql: "INSERT INTO user (id, login_name) VALUES (?, ?)", arguments: [userID, loginName])
            }
            if let token {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO token (token, kind, subject) VALUES (?, 'user', ?)",
                    arguments: [token, userID]
                )
            }
            return userID
        }
    }

    /// Who a bearer token is: `("user", id)` or `("thing", id)`.
    func principal(_ db: Database, token: String) throws -> (kind: String, subject: String)? {
        try Row.fetchOne(db, sql: "SELECT kind, subject FROM token WHERE token = ?", arguments: [token]).map {
            ($0["kind"], $0["subject"])
        }
    }

    func user(_ db: Database, loginName: String) throws -> (id: String, loginName: String)? {
        try Row.fetchOne(db, sql: "SELECT id, login_name FROM user WHERE login_name = ?", arguments: [loginName]).map {
            ($0["id"], $0["login_name"])
        }
    }

    func user(_ db: Database, id: String) throws -> (id: String, loginName: String)? {
        try Row.fetchOne(db, sql: "SELECT id, login_name FROM user WHERE id = ?", arguments: [id]).map {
            ($0["id"], $0["login_name"])
        }
    }

    // MARK: Things and owners

    struct Thing {
        var id: String
        var vendorThingID: String
        var passwordSHA256: String
        var thingType: String
        var properties: String
        var createdAt: Int64
    }

    func thing(_ db: Database, id: String) throws -> Thing? {
        try Row.fetchOne(db, sql: "SELECT * FROM thing WHERE id = ?", arguments: [id]).map(Self.thing)
    }

    func thing(_ db: Database, vendorThingID: String) throws -> Thing? {
        try Row.fetchOne(db, sql: "SELECT * FROM thing WHERE vendor_thing_id = ?", arguments: [vendorThingID]).map(
            Self.thing
        )
    }

    static func thing(_ row: Row) -> Thing {
        Thing(
            id: row["id"],
            vendorThingID: row["vendor_thing_id"],
            passwordSHA256: row["password_sha256"],
            thingType: row["thing_type"],
            properties: row["properties"],
            createdAt: row["created_at"]
        )
    }

    func owners(_ db: Database, thingID: String) throws -> [String] {
        try String.fetchAll(
            db,
            sql: "SELECT user_id FROM owner WHERE thing_id = ? ORDER BY rowid",
            arguments: [thingID]
        )
    }

    /// The thing's access token.
    func thingToken(_ db: Database, thingID: String) throws -> String? {
        try String.fetchOne(
            db,
            sql: "SELECT token FROM token WHERE kind = 'thing' AND subject = ?",
            arguments: [thingID]
        )
    }

    static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func recordEffect(_ db: Database, operation: String, subject: String, at: Int64) throws {
        try db.execute(
            sql: "INSERT INTO effect (at, operation, subject) VALUES (?, ?, ?)",
            arguments: [at, operation, subject]
        )
    }

    // MARK: Ids

    /// Kii's shape: `th.` and 12-4-4-4-8 lower-case hex digits.
    static func newThingID() -> String { "th." + hexGroups([12, 4, 4, 4, 8]) }

    static func newUserID() -> String { hexGroups([12, 4, 4, 4, 8]) }

    /// 43 characters of base64url from 32 random bytes, as Kii's tokens look.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func hexGroups(_ lengths: [Int]) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return lengths.map { length in
            String((0..<length).map { _ in digits.randomElement(using: &generator)! })
        }.joined(separator: "-")
    }

    // MARK: What it saw

    /// Requests, effects per operation, and faults fired.
    public func stats(faultsFired: [String: Int] = [:]) throws -> KiiEmulatorStats {
        try read { db in
            let requests = try Int.fetchOne(db, sql: "SELECT count(*) FROM request_log") ?? 0
            var effects: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT operation, count(*) AS n FROM effect GROUP BY operation") {
                effects[row["operation"]] = row["n"]
            }
            return KiiEmulatorStats(requests: requests, effects: effects, faultsFired: faultsFired)
        }
    }

    /// Effects on one subject (a thing id), oldest first.
    public func effects(subject: String) throws -> [String] {
        try read { db in
            try String.fetchAll(
                db,
                sql: "SELECT operation FROM effect WHERE subject = ? ORDER BY id",
                arguments: [subject]
            )
        }
    }

    /// The login names owning a thing, in the order they were added.
    public func ownerLoginNames(thingID: String) throws -> [String] {
        try read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT u.login_name FROM owner AS o JOIN user AS u ON u.id = o.user_id
                    WHERE o.thing_id = ? ORDER BY o.rowid
                    """,
                arguments: [thingID]
            )
        }
    }

    /// The thing onboarded for a vendor thing id: its id and type.
    public func thing(vendorThingID: String) throws -> (id: String, thingType: String, properties: String)? {
        try read { db in
            try thing(db, vendorThingID: vendorThingID).map { ($0.id, $0.thingType, $0.properties) }
        }
    }

    func logRequest(at: Int64, method: String, route: String, status: Int, errorCode: String?, fault: String?) {
        _ = try? write { db in
            try db.execute(
                sql: """
                    INSERT INTO request_log (at, method, route, status, error_code, fault)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [at, method, route, status, errorCode, fault]
            )
        }
    }
}

/// What the emulator saw: requests, effects (state changes) per kind, faults fired. Tests compare
/// requests with effects to show each change happened once.
public struct KiiEmulatorStats: Codable, Sendable, Equatable {
    public var requests: Int
    /// `onboard`, `owner_add`, `owner_remove`.
    public var effects: [String: Int]
    public var faultsFired: [String: Int]

    enum CodingKeys: String, CodingKey {
        case requests, effects
        case faultsFired = "faults_fired"
    }

    public func effects(_ kind: String) -> Int { effects[kind] ?? 0 }
}
