import Foundation
import GRDB
import NBGWCore

/// The console's searchable, paged lists (docs/console.md). Every search term is a bound
/// parameter of a `LIKE … ESCAPE '\'` (its `%`, `_` and `\` escaped), never SQL text.
extension Registry {
    /// One page of a list and whether another follows.
    public struct Page<Item: Sendable>: Sendable {
        public var items: [Item]
        /// The first row's position (0-based).
        public var offset: Int
        public var hasMore: Bool
    }

    /// A pairing token as the console lists it, with the device it bound if any.
    public struct TokenSummary: Sendable, Equatable {
        public var token: String
        public var home: String
        public var createdAt: Date
        public var expiresAt: Date
        public var usedAt: Date?
        public var usedByDevice: String?
    }

    /// `term` as a LIKE pattern matching it anywhere, its wildcards taken literally.
    static func likePattern(_ term: String) -> String {
        var escaped = ""
        for character in term {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%\(escaped)%"
    }

    static func page<Item>(_ rows: [Item], offset: Int, limit: Int) -> Page<Item> {
        Page(items: Array(rows.prefix(limit)), offset: offset, hasMore: rows.count > limit)
    }

}

extension Registry.Console {
    /// Devices whose id, IMEI, model or label code contains `search` (all when empty), by device id.
    public func searchDevices(
        _ search: String,
        offset: Int,
        limit: Int
    ) throws(NBGWError) -> Registry.Page<DeviceRecord> {
        try registry.read { db in
            let pattern = Registry.likePattern(search)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM device
                    WHERE ? = '' OR device_id LIKE ? ESCAPE '\\' OR imei LIKE ? ESCAPE '\\'
                        OR model LIKE ? ESCAPE '\\' OR label_code LIKE ? ESCAPE '\\'
                    ORDER BY device_id LIMIT ? OFFSET ?
                    """,
                arguments: [search, pattern, pattern, pattern, pattern, limit + 1, offset]
            ).map(DeviceRecord.init)
            return Registry.page(rows, offset: offset, limit: limit)
        }
    }

    /// Bindings whose device id, IMEI, account or home contains `search`, by device id.
    public func searchBindings(
        _ search: String,
        offset: Int,
        limit: Int
    ) throws(NBGWError) -> Registry.Page<BindingRecord> {
        try registry.read { db in
            let pattern = Registry.likePattern(search)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.device_id, d.imei, a.name AS account, h.name AS home, b.bound_at, b.source, b.operator
                    FROM binding b JOIN device d ON d.id = b.device_row JOIN account a ON a.id = b.account_id
                    JOIN home h ON h.id = b.home_id
                    WHERE ? = '' OR d.device_id LIKE ? ESCAPE '\\' OR d.imei LIKE ? ESCAPE '\\'
                        OR a.name LIKE ? ESCAPE '\\' OR h.name LIKE ? ESCAPE '\\'
                    ORDER BY d.device_id LIMIT ? OFFSET ?
                    """,
                arguments: [search, pattern, pattern, pattern, pattern, limit + 1, offset]
            ).map { row in
                BindingRecord(
                    deviceID: row["device_id"],
                    imei: row["imei"],
                    account: row["account"],
                    home: row["home"],
                    boundAt: Date(millis: row["bound_at"]),
                    source: BindingSource(rawValue: row["source"]) ?? .cli,
                    operator: row["operator"]
                )
            }
            return Registry.page(rows, offset: offset, limit: limit)
        }
    }

    /// Accounts whose name contains `search`, by name.
    public func searchAccounts(_ search: String, offset: Int, limit: Int) throws(NBGWError) -> Registry.Page<Account> {
        try registry.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, name, role, created_at FROM account WHERE ? = '' OR name LIKE ? ESCAPE '\\'
                    ORDER BY name LIMIT ? OFFSET ?
                    """,
                arguments: [search, Registry.likePattern(search), limit + 1, offset]
            ).map(Account.init(row:))
            return Registry.page(rows, offset: offset, limit: limit)
        }
    }

    /// Homes whose name or owner contains `search`, by name.
    public func searchHomes(_ search: String, offset: Int, limit: Int) throws(NBGWError) -> Registry.Page<Home> {
        try registry.read { db in
            let pattern = Registry.likePattern(search)
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT h.id, h.name, a.name AS owner, h.created_at,
                           (SELECT group_concat(product_id, ',') FROM
                               (SELECT product_id FROM home_product WHERE home_id = h.id ORDER BY product_id))
                               AS products
                    FROM home h JOIN account a ON a.id = h.owner_account_id
                    WHERE ? = '' OR h.name LIKE ? ESCAPE '\\' OR a.name LIKE ? ESCAPE '\\'
                    ORDER BY h.name LIMIT ? OFFSET ?
                    """,
                arguments: [search, pattern, pattern, limit + 1, offset]
            ).map { row in
                Home(
                    id: row["id"],
                    name: row["name"],
                    owner: row["owner"],
                    allowedProducts: (row["products"] as String?).map { $0.split(separator: ",").map(String.init) }
                        ?? [],
                    createdAt: Date(millis: row["created_at"])
                )
            }
            return Registry.page(rows, offset: offset, limit: limit)
        }
    }

    /// Pairing tokens, newest first; those of homes whose name contains `search`.
    public func searchTokens(
        _ search: String,
        offset: Int,
        limit: Int
    ) throws(NBGWError) -> Registry.Page<Registry.TokenSummary> {
        try registry.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT t.token, h.name AS home, t.created_at, t.expires_at, t.used_at, d.device_id
                    FROM pairing_token t JOIN home h ON h.id = t.home_id LEFT JOIN device d ON d.id = t.used_by_device
                    WHERE ? = '' OR h.name LIKE ? ESCAPE '\\' OR t.token LIKE ? ESCAPE '\\'
                    ORDER BY t.id DESC LIMIT ? OFFSET ?
                    """,
                arguments: [search, Registry.likePattern(search), Registry.likePattern(search), limit + 1, offset]
            ).map { row in
                let used: Int64? = row["used_at"]
                return Registry.TokenSummary(
                    token: row["token"],
                    home: row["home"],
                    createdAt: Date(millis: row["created_at"]),
                    expiresAt: Date(millis: row["expires_at"]),
                    usedAt: used.map(Date.init(millis:)),
                    usedByDevice: row["device_id"]
                )
            }
            return Registry.page(rows, offset: offset, limit: limit)
        }
    }
}
