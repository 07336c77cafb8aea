import NBGWCore

/// The account and home facts of the binds in one write transaction, each read from the store
/// once (``Registry/gatherFacts(_:_:owners:)``).
///
/// Why this is exact, not a cache that can go stale: the binds of a group are evaluated inside
/// one IMMEDIATE transaction, so no other connection writes meanwhile, and a bind never changes an
/// account, a home or a home's product list (it writes only bindings, tokens and trail rows). A
/// second read in the same transaction would return the same rows. A scanner station binds its
/// devices into one home, so a group of N binds reads these rows once instead of N times (three
/// statements per bind).
struct OwnerFacts {
    private var accounts: [String: BindFacts.AccountFacts?] = [:]
    private var homes: [String: BindFacts.HomeFacts?] = [:]

    /// The facts of account `name`: from this transaction's earlier read, or `read`.
    mutating func account(
        _ name: String,
        read: () throws -> BindFacts.AccountFacts?
    ) rethrows -> BindFacts.AccountFacts? {
        if let known = accounts[name] { return known }
        let facts = try read()
        accounts[name] = .some(facts)
        return facts
    }

    /// The facts of home `name` (its allowed products included): from this transaction's earlier
    /// read, or `read`.
    mutating func home(_ name: String, read: () throws -> BindFacts.HomeFacts?) rethrows -> BindFacts.HomeFacts? {
        if let known = homes[name] { return known }
        let facts = try read()
        homes[name] = .some(facts)
        return facts
    }
}
