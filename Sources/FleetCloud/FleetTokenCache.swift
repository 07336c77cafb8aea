import Synchronization

/// Access tokens this node found live, kept for a few seconds. Why: every signed call but the
/// token grant carries an access token, and looking it up was one database round trip of the six
/// each pairing token or bind costs (docs/fleet.md, "Performance"). Why seconds: a token replaced
/// by a refresh on another node, or revoked in the database, stops working here within
/// ``lifetime`` without any message between nodes, as a retired secret does
/// (``FleetCredentialCache``); a refresh through this node drops the old token at once. The
/// token's own expiry is checked on every call against the cached `expires_at`.
final class FleetTokenCache: Sendable {
    static let lifetime: Duration = .seconds(5)
    /// Bounded: only tokens the database knew as live get here, and a node never holds more than
    /// this many (a flood of valid tokens empties it, and the database answers again).
    static let capacity = 10_000

    private struct Key: Hashable {
        var clientID: String
        var accessToken: String
    }

    private let entries = Mutex<[Key: (expiresAt: Int64, cachedAt: ContinuousClock.Instant)]>([:])
    private let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// The token's `expires_at` (Unix ms) when this node saw it live less than ``lifetime`` ago.
    func expiry(of accessToken: String, clientID: String) -> Int64? {
        let key = Key(clientID: clientID, accessToken: accessToken)
        let now = self.now()
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.cachedAt.duration(to: now) < FleetTokenCache.lifetime else {
                entries[key] = nil
                return nil
            }
            return entry.expiresAt
        }
    }

    /// Keeps a token the database just answered as live (not revoked).
    func store(_ accessToken: String, clientID: String, expiresAt: Int64) {
        let now = self.now()
        entries.withLock { entries in
            if entries.count >= FleetTokenCache.capacity { entries.removeAll() }
            entries[Key(clientID: clientID, accessToken: accessToken)] = (expiresAt, now)
        }
    }

    /// Forgets a token (replaced by a refresh through this node).
    func remove(_ accessToken: String, clientID: String) {
        _ = entries.withLock { $0.removeValue(forKey: Key(clientID: clientID, accessToken: accessToken)) }
    }
}
