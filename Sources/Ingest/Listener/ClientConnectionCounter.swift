import Synchronization

/// Open connections per client address, shared by every connection of one listener: the
/// per-client cap of ``IngestConnectionLimits/maxConnectionsPerClient``. Addresses in `exempt`
/// (trusted proxies: every client behind one shares its address) are never refused.
public final class ClientConnectionCounter: Sendable {
    public let limit: Int
    public let exempt: Set<String>
    private let open = Mutex<[String: Int]>([:])
    private let refusals = Mutex<Int>(0)

    public init(limit: Int, exempt: Set<String> = []) {
        self.limit = max(1, limit)
        self.exempt = exempt
    }

    /// Counts a new connection from `client`; false (and nothing counted) when it would be one too many.
    public func admit(_ client: String) -> Bool {
        if exempt.contains(client) { return true }
        let admitted = open.withLock { open in
            let count = open[client, default: 0]
            guard count < limit else { return false }
            open[client] = count + 1
            return true
        }
        if !admitted { refusals.withLock { $0 += 1 } }
        return admitted
    }

    /// A connection that ``admit(_:)`` counted has closed.
    public func release(_ client: String) {
        if exempt.contains(client) { return }
        open.withLock { open in
            let count = open[client, default: 0] - 1
            open[client] = count > 0 ? count : nil
        }
    }

    /// Connections counted for `client` now.
    public func count(of client: String) -> Int { open.withLock { $0[client, default: 0] } }

    /// Connections refused since start.
    public var refused: Int { refusals.withLock { $0 } }
}
