import ServerSupport
import Synchronization

/// The node's counters for `/metrics`: requests by route and status, replays, conflicts by kind,
/// transaction retries and database round trips.
public final class FleetCounters: Sendable {
    private let state = Mutex(State())
    /// The API listener's open connections and their peak (``FleetNode/maxConnections``).
    public let connections = ListenerConnectionBudget.Count()

    struct State {
        var requests: [String: Int] = [:]
        var replays = 0
        var conflicts: [String: Int] = [:]
        var retries = 0
        var roundTrips = 0
        var rateLimited = 0
    }

    public init() {}

    func request(route: String, status: Int) {
        state.withLock { $0.requests["\(route)\u{0}\(status)", default: 0] += 1 }
    }

    func replay() { state.withLock { $0.replays += 1 } }
    func conflict(_ kind: String) { state.withLock { $0.conflicts[kind, default: 0] += 1 } }
    func retry() { state.withLock { $0.retries += 1 } }
    func roundTrip() { state.withLock { $0.roundTrips += 1 } }
    func rateLimit() { state.withLock { $0.rateLimited += 1 } }

    /// The Prometheus text exposition (version 0.0.4).
    public func exposition(up: Bool) -> String {
        let now = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP nbgw_cloud_requests_total Requests answered, by route and HTTP status.")
        lines.append("# TYPE nbgw_cloud_requests_total counter")
        for (key, count) in now.requests.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{0}", maxSplits: 1)
            lines.append("nbgw_cloud_requests_total{route=\"\(parts[0])\",status=\"\(parts[1])\"} \(count)")
        }
        lines.append("# HELP nbgw_cloud_replays_total Idempotency keys answered again with their first answer.")
        lines.append("# TYPE nbgw_cloud_replays_total counter")
        lines.append("nbgw_cloud_replays_total \(now.replays)")
        lines.append("# HELP nbgw_cloud_conflicts_total Refused binds and registrations, by kind.")
        lines.append("# TYPE nbgw_cloud_conflicts_total counter")
        for kind in ["bound_same_tenant", "bound_other_tenant", "imei_other_tenant", "token_used"] {
            lines.append("nbgw_cloud_conflicts_total{kind=\"\(kind)\"} \(now.conflicts[kind, default: 0])")
        }
        lines.append("# HELP nbgw_cloud_transaction_retries_total Transactions retried after 40001 or 40P01.")
        lines.append("# TYPE nbgw_cloud_transaction_retries_total counter")
        lines.append("nbgw_cloud_transaction_retries_total \(now.retries)")
        lines.append("# HELP nbgw_cloud_transactions_total Transactions started on the database.")
        lines.append("# TYPE nbgw_cloud_transactions_total counter")
        lines.append("nbgw_cloud_transactions_total \(now.roundTrips)")
        lines.append("# HELP nbgw_cloud_rate_limited_total Requests refused by the per-tenant rate limit.")
        lines.append("# TYPE nbgw_cloud_rate_limited_total counter")
        lines.append("nbgw_cloud_rate_limited_total \(now.rateLimited)")
        lines.append("# HELP nbgw_cloud_connections_open Connections open on the API listener.")
        lines.append("# TYPE nbgw_cloud_connections_open gauge")
        lines.append("nbgw_cloud_connections_open \(connections.open)")
        lines.append("# HELP nbgw_cloud_connections_peak The most connections open at once on the API listener.")
        lines.append("# TYPE nbgw_cloud_connections_peak gauge")
        lines.append("nbgw_cloud_connections_peak \(connections.peak)")
        lines.append("# HELP nbgw_cloud_database_up Whether the database answered the last health check.")
        lines.append("# TYPE nbgw_cloud_database_up gauge")
        lines.append("nbgw_cloud_database_up \(up ? 1 : 0)")
        return lines.joined(separator: "\n") + "\n"
    }
}
