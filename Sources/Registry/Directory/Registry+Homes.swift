import Foundation
import GRDB
import NBGWCore

extension Registry.Directory {
    /// Adds a home owned by `owner` (an owner account), optionally restricted to `allowedProducts`.
    @discardableResult
    public func addHome(name: String, owner: String, allowedProducts: [String] = []) throws(NBGWError) -> Home {
        try Registry.validateName(name, what: "home name")
        for product in allowedProducts {
            try Registry.validateName(product, what: "product id")
        }
        let now = registry.nowMillis()
        return try registry.write { db in
            guard
                let ownerRow = try Row.fetchOne(
                    db,
                    sql: "SELECT id, role FROM account WHERE name = ?",
                    arguments: [owner]
                )
            else {
                throw NBGWError(
                    .unknownAccount,
                    "no account \(owner.escapedForDisplay()); create it with `nbgw accounts add \(owner) --role owner`"
                )
            }
            guard ownerRow["role"] as String == Account.Role.owner.rawValue else {
                throw NBGWError(
                    .homeAccessDenied,
                    "account \(owner.escapedForDisplay()) is a guest; only owner accounts can own homes"
                )
            }
            if try Int64.fetchOne(db, sql: "SELECT id FROM home WHERE name = ?", arguments: [name]) != nil {
                throw NBGWError(.homeExists, "home \(name.escapedForDisplay()) already exists")
            }
            try db.execute(
                sql: "INSERT INTO home (name, owner_account_id, created_at) VALUES (?, ?, ?)",
                arguments: [name, ownerRow["id"] as Int64, now]
            )
            let id = db.lastInsertedRowID
            let products = Array(Set(allowedProducts)).sorted()
            for product in products {
                try db.execute(
                    sql: "INSERT INTO home_product (home_id, product_id) VALUES (?, ?)",
                    arguments: [id, product]
                )
            }
            let detail = products.isEmpty ? "products=any" : "products=\(products.joined(separator: ","))"
            try Registry.appendAudit(db, at: now, event: "home_add", account: owner, home: name, detail: detail)
            return Home(id: id, name: name, owner: owner, allowedProducts: products, createdAt: Date(millis: now))
        }
    }

    /// All homes, by name, with their allow-lists.
    public func homes() throws(NBGWError) -> [Home] {
        try registry.read { db in try Registry.fetchHomes(db, whereName: nil) }
    }

    /// The home named `name` with its allow-list, nil when there is none.
    public func home(named name: String) throws(NBGWError) -> Home? {
        try registry.read { db in try Registry.fetchHomes(db, whereName: name).first }
    }
}

extension Registry {
    static func fetchHomes(_ db: Database, whereName name: String?) throws -> [Home] {
        let sql = """
            SELECT h.id, h.name, a.name AS owner, h.created_at,
                   (SELECT group_concat(product_id, ',') FROM
                       (SELECT product_id FROM home_product WHERE home_id = h.id ORDER BY product_id)) AS products
            FROM home h JOIN account a ON a.id = h.owner_account_id
            """
        let rows =
            if let name {
                try Row.fetchAll(db, sql: sql + " WHERE h.name = ?", arguments: [name])
            } else {
                try Row.fetchAll(db, sql: sql + " ORDER BY h.name")
            }
        return rows.map { row in
            let products = (row["products"] as String?).map { $0.split(separator: ",").map(String.init) } ?? []
            return Home(
                id: row["id"],
                name: row["name"],
                owner: row["owner"],
                allowedProducts: products,
                createdAt: Date(millis: row["created_at"])
            )
        }
    }
}
