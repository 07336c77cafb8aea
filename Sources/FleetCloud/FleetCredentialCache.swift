import CloudServer
import Synchronization

/// Gateways' credentials kept for a few seconds per node. Why: every request is authenticated
/// before anything else, and a lookup plus an AES-GCM open per request would be one more database
/// round trip on every call. Why seconds: a retired secret stops working within ``lifetime``
/// on every node without any message between nodes (docs/fleet.md, "Tenants, gateways and secrets").
final class FleetCredentialCache: Sendable {
    static let lifetime: Duration = .seconds(5)
    private let entries = Mutex<[String: (CloudCredential, ContinuousClock.Instant)]>([:])

    func lookup(_ clientID: String) -> CloudCredential? {
        entries.withLock { entries in
            guard let (credential, at) = entries[clientID] else { return nil }
            guard at.duration(to: .now) < FleetCredentialCache.lifetime else {
                entries[clientID] = nil
                return nil
            }
            return credential
        }
    }

    func store(_ credential: CloudCredential) {
        entries.withLock { entries in
            // Bounded: a flood of unknown client ids never reaches here (nil is not cached).
            if entries.count > 10_000 { entries.removeAll() }
            entries[credential.principal.clientID] = (credential, .now)
        }
    }

    func removeAll() { entries.withLock { $0.removeAll() } }
}
