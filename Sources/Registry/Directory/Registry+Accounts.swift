import Foundation
import GRDB
import NBGWCore

extension Registry.Directory {
    /// Adds an account. Names are 1–64 printable characters, unique.
    @discardableResult
    public func addAccount(name: String, role: Account.Role) throws(NBGWError) -> Account {
        try Registry.validateName(name, what: "account name")
        let now = registry.nowMillis()
        return try registry.write { db in
            if try Int64.fetchOne(db, sql: "SELECT id FROM account WHERE name = ?", arguments: [name]) != nil {
                throw NBGWError(.accountExists, "account \(name.escapedForDisplay()) already exists")
            }
            try db.execute(
                sql: "INSERT INTO account (name, role, created_at) VALUES (?, ?, ?)",
                arguments: [name, role.rawValue, now]
            )
            let id = db.lastInsertedRowID
            try Registry.appendAudit(db, at: now, event: "account_add", account: name, detail: "role=\(role.rawValue)")
            return Account(id: id, name: name, role: role, createdAt: Date(millis: now))
        }
    }

    /// All accounts, by name.
    public func accounts() throws(NBGWError) -> [Account] {
        try registry.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, role, created_at FROM account ORDER BY name").map(Account.init)
        }
    }

    /// The account named `name`, nil when there is none.
    public func account(named name: String) throws(NBGWError) -> Account? {
        try registry.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT id, name, role, created_at FROM account WHERE name = ?",
                arguments: [name]
            )
            .map(Account.init)
        }
    }
}

extension Registry {
    /// Rejects empty, over-long or control-character names: they end up in reports and terminals.
    ///
    /// The rule counts Unicode scalars (code points), as JSON Schema's `maxLength` does, so that
    /// docs/ingest-api.yaml states it exactly: 1 to 64 scalars, none a control character (C0, DEL,
    /// C1), the first and the last not a space separator (``QRScalar/isSpaceSeparator(_:)``).
    static func validateName(_ name: String, what: String) throws(NBGWError) {
        let scalars = name.unicodeScalars
        guard (1...64).contains(scalars.count), scalars.allSatisfy({ !QRScalar.isControl($0) }),
            let first = scalars.first, let last = scalars.last,
            !QRScalar.isSpaceSeparator(first), !QRScalar.isSpaceSeparator(last)
        else {
            throw NBGWError(
                .invalidArgument,
                "\(what) \(name.escapedForDisplay()) must be 1 to 64 characters, without control characters "
                    + "or surrounding spaces"
            )
        }
    }
}

enum QRScalar {
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Unicode's space separators (general category Zs), what Foundation's `.whitespaces` holds
    /// besides the tab (a control character here anyway); listed so the API spec can name them.
    static func isSpaceSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}

extension Account {
    init(row: Row) {
        self.init(
            id: row["id"],
            name: row["name"],
            role: Role(rawValue: row["role"]) ?? .guest,
            createdAt: Date(millis: row["created_at"])
        )
    }
}

extension Date {
    init(millis: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(millis) / 1000)
    }
}
