import Foundation
import GRDB
import NBGWCore

extension Registry {
    /// An operator API key for the ingest API, as stored: never the key itself, only its digest.
    public struct APIKey: Sendable, Equatable, Codable {
        /// What a key may do, fixed at creation (migration v13; the schema refuses a change).
        public enum Scope: String, Sendable, Equatable, Codable, CaseIterable {
            /// Every route of the ingest API (what every key created before v13 is).
            case full
            /// Parse a QR, bind, read a pairing result: a scanner or a binding station, which then
            /// cannot list bindings, read device trails or unbind.
            case bind
        }

        public var name: String
        /// The public lookup part of the key (`nbgw_XXXXXXXX`); safe to print.
        public var prefix: String
        public var createdAt: Date
        public var revokedAt: Date?
        public var lastUsedAt: Date?
        public var scope: Scope = .full

        public var isRevoked: Bool { revokedAt != nil }
    }

    /// The ingest API's keys (docs/ingest.md, "Security"): create, list, revoke, verify and touch.
    /// Reached as `registry.apiKeys`; the key check runs on its own connection (``APIKeyReader``)
    /// with a prepared statement.
    public struct APIKeys: Sendable {
        let registry: Registry
    }

    /// The API keys of the ingest API (``APIKeys``).
    public var apiKeys: APIKeys { APIKeys(registry: self) }
}

extension Registry.APIKeys {
    /// Stores a new API key's digest under `name`. The caller (``Ingest``) generates the key and
    /// hashes it; the store never sees the plaintext.
    ///
    /// - Parameters:
    ///   - prefix: the key's public lookup part (unique).
    ///   - keyHash: SHA-256 of the whole key, 32 bytes.
    ///   - scope: what the key may do (``Registry/APIKey/Scope``).
    public func create(
        name: String,
        prefix: String,
        keyHash: [UInt8],
        scope: Registry.APIKey.Scope = .full
    ) throws(NBGWError) -> Registry.APIKey {
        try Registry.validateAPIKeyName(name)
        guard keyHash.count == 32 else {
            throw NBGWError(.internalError, "API key digest must be 32 bytes (SHA-256), got \(keyHash.count)")
        }
        let now = registry.nowMillis()
        return try registry.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM api_key WHERE name = ?", arguments: [name]) == true {
                throw NBGWError(
                    .invalidArgument,
                    "an API key named \(name.escapedForDisplay()) already exists (names stay taken after revocation); "
                        + "pick another name"
                )
            }
            try db.execute(
                sql: "INSERT INTO api_key (name, prefix, key_hash, created_at, scope) VALUES (?, ?, ?, ?, ?)",
                arguments: [name, prefix, Data(keyHash), now, scope.rawValue]
            )
            return Registry.APIKey(name: name, prefix: prefix, createdAt: Date(millis: now), scope: scope)
        }
    }

    /// Every API key, revoked ones included, by name.
    public func all() throws(NBGWError) -> [Registry.APIKey] {
        try registry.read { db in
            let statement = try PreparedStatement.cached(
                db,
                "SELECT \(Registry.apiKeyColumns) FROM api_key ORDER BY name"
            )
            defer { statement.reset() }
            var keys: [Registry.APIKey] = []
            while try statement.step() { keys.append(Registry.apiKey(statement)) }
            return keys
        }
    }

    /// Revokes the key named `name`; from then on every request with it is refused (401).
    @discardableResult
    public func revoke(name: String) throws(NBGWError) -> Registry.APIKey {
        let now = registry.nowMillis()
        return try registry.write { db in
            let select = try PreparedStatement.cached(
                db,
                "SELECT \(Registry.apiKeyColumns) FROM api_key WHERE name = ?"
            )
            guard var key = try select.binding(.text(name)).first(Registry.apiKey) else {
                throw NBGWError(
                    .invalidArgument,
                    "no API key named \(name.escapedForDisplay()); list them with `nbgw apikeys list`"
                )
            }
            guard key.revokedAt == nil else { return key }
            try db.execute(sql: "UPDATE api_key SET revoked_at = ? WHERE name = ?", arguments: [now, name])
            key.revokedAt = Date(millis: now)
            return key
        }
    }

    /// The live (unrevoked) key whose prefix is `prefix` and whose stored digest equals `keyHash`,
    /// compared in constant time; nil otherwise (unknown, revoked or wrong).
    public func verify(prefix: String, keyHash: [UInt8]) throws(NBGWError) -> Registry.APIKey? {
        let found = try registry.keyReader.key(prefix: prefix)
        // Compare against a dummy digest when the prefix is unknown, so timing does not say which.
        let matches = Registry.constantTimeEqual(found?.hash ?? [UInt8](repeating: 0, count: 32), keyHash)
        guard let found, matches else { return nil }
        return found.key.isRevoked ? nil : found.key
    }

    /// Records that the key was used (callers throttle this; it is informational). Waits at most
    /// 50 ms for another process's write lock, so it never holds up the binds queued behind it.
    public func touch(name: String) throws(NBGWError) {
        let now = registry.nowMillis()
        do {
            try registry.withBusyTimeout(.milliseconds(50)) { db in
                try db.inTransaction(.immediate) {
                    try db.execute(sql: "UPDATE api_key SET last_used_at = ? WHERE name = ?", arguments: [now, name])
                    return .commit
                }
            }
        } catch let error as NBGWError {
            throw error
        } catch {
            throw Registry.storeError(error, path: registry.path)
        }
    }
}

extension Registry {
    /// Compares two byte strings in time that depends only on their lengths.
    public static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    static func validateAPIKeyName(_ name: String) throws(NBGWError) {
        let allowed = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed else {
            throw NBGWError(
                .invalidArgument,
                "API key name \(name.escapedForDisplay()) must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' or '-'"
            )
        }
    }

    /// The columns ``apiKey(_:)`` reads, in its order (every query of keys selects these first).
    static let apiKeyColumns = "name, prefix, created_at, revoked_at, last_used_at, scope"
    static let apiKeyColumnCount: Int32 = 6

    /// The key in the current row of a statement that selected ``apiKeyColumns`` first.
    static func apiKey(_ row: PreparedStatement) -> APIKey {
        APIKey(
            name: row.string(0) ?? "",
            prefix: row.string(1) ?? "",
            createdAt: Date(millis: row.int64(2)),
            revokedAt: row.optionalInt64(3).map(Date.init(millis:)),
            lastUsedAt: row.optionalInt64(4).map(Date.init(millis:)),
            // A scope this build does not know (a newer store) is read as the narrowest.
            scope: APIKey.Scope(rawValue: row.string(5) ?? "") ?? .bind
        )
    }
}
