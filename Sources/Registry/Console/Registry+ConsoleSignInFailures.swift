import Foundation
import GRDB
import NBGWCore

/// Refused console sign-ins in a row, per name and client address (migration v13), and the
/// lock-outs they lead to. Kept for any name tried, known or not, so that neither the answers nor
/// their timing say which names exist; kept per address, so that nobody elsewhere can lock a
/// name's owner out.
extension Registry.Console {
    /// What a refusal came to.
    public struct SignInFailure: Sendable, Equatable {
        /// Refusals in a row from this address for this name, this one included.
        public var failures: Int
        /// Set when this refusal locked the name for this address.
        public var lockedUntil: Date?
    }

    /// Until when `name` is locked for `client`, or nil (not locked, or the lock has ended).
    public func signInLock(name: String, client: String) throws(NBGWError) -> Date? {
        let now = registry.nowMillis()
        let until = try registry.read { db in
            try Int64.fetchOne(
                db,
                sql: "SELECT locked_until FROM console_signin_failure WHERE name = ? AND client = ?",
                arguments: [String(name.prefix(64)), String(client.prefix(64))]
            )
        }
        guard let until, until > now else { return nil }
        return Date(millis: until)
    }

    /// Counts a refused sign-in of `name` from `client`. From the `limit`-th refusal in a row on,
    /// each one locks the pair: `lockFor` at first, doubled at every further refusal after a lock
    /// ended (a progressive delay), at most `maxLock`. A pair quiet for `forgetAfter` starts again
    /// from zero.
    public func recordSignInFailure(
        name: String,
        client: String,
        limit: Int,
        lockFor: Duration,
        maxLock: Duration = .seconds(24 * 3600),
        forgetAfter: Duration = .seconds(24 * 3600)
    ) throws(NBGWError) -> SignInFailure {
        let now = registry.nowMillis()
        let name = String(name.prefix(64))
        let client = String(client.prefix(64))
        return try registry.write { db in
            let previous = try Row.fetchOne(
                db,
                sql: "SELECT failures, last_at, locked_until FROM console_signin_failure WHERE name = ? AND client = ?",
                arguments: [name, client]
            )
            var failures = 1
            if let previous, now - (previous["last_at"] as Int64) < forgetAfter.inMilliseconds {
                failures = (previous["failures"] as Int) + 1
            }
            var lockedUntil: Int64?
            if failures >= limit {
                let doublings = min(failures - limit, 20)
                let lock = min(lockFor.inMilliseconds << Int64(doublings), maxLock.inMilliseconds)
                lockedUntil = now + lock
            }
            try db.execute(
                sql: """
                    INSERT INTO console_signin_failure (name, client, failures, last_at, locked_until)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (name, client) DO UPDATE SET
                        failures = excluded.failures, last_at = excluded.last_at, locked_until = excluded.locked_until
                    """,
                arguments: [name, client, failures, now, lockedUntil]
            )
            return SignInFailure(failures: failures, lockedUntil: lockedUntil.map(Date.init(millis:)))
        }
    }

    /// A sign-in of `name` from `client` succeeded: that address's count starts again.
    public func recordSignIn(name: String, client: String) throws(NBGWError) {
        let now = registry.nowMillis()
        try registry.write { db in
            try db.execute(
                sql: "DELETE FROM console_signin_failure WHERE name = ? AND client = ?",
                arguments: [String(name.prefix(64)), String(client.prefix(64))]
            )
            try db.execute(
                sql: "UPDATE console_operator SET last_signin_at = ? WHERE name = ?",
                arguments: [now, name]
            )
        }
    }

    /// Ages out what refused sign-ins leave behind: their rows in the console's trail older than
    /// `trailAge`, and counts untouched for `countAge` that no longer lock anything. Returns the
    /// trail rows removed.
    @discardableResult
    public func pruneSignInRefusals(
        trailOlderThan trailAge: Duration,
        countsOlderThan countAge: Duration
    ) throws(NBGWError) -> Int {
        let now = registry.nowMillis()
        return try registry.write { db in
            try db.execute(
                sql: """
                    DELETE FROM console_audit
                    WHERE event IN ('signin_refused', 'signin_locked', 'lockout') AND at < ?
                    """,
                arguments: [now - trailAge.inMilliseconds]
            )
            let removed = db.changesCount
            try db.execute(
                sql: """
                    DELETE FROM console_signin_failure
                    WHERE last_at < ? AND (locked_until IS NULL OR locked_until < ?)
                    """,
                arguments: [now - countAge.inMilliseconds, now]
            )
            return removed
        }
    }
}
