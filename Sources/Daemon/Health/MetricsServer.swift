import Foundation
import Logging

/// The operator's HTTP endpoint (loopback by default, its own port): `GET /metrics` in the
/// Prometheus text format, `GET /healthz` as a ``HealthReport`` (200, or 503 when the store is
/// unusable); `HEAD` for either, 404 for other paths, 405 for other methods. Served by
/// ``OperatorHTTPServer``, a ServiceLifecycle `Service`.
public enum MetricsServer {
    /// The Prometheus text exposition format's content type.
    public static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Builds the service.
    ///
    /// - Parameters:
    ///   - health: the current report (asked at every request of either route).
    ///   - metrics: refreshed from the report (per-modem series included), then rendered, at every
    ///     `/metrics` request.
    ///   - onServerRunning: called with the bound address once the listener is up (port 0 picks one).
    public static func makeService(
        listen: ListenAddress,
        health: @escaping @Sendable () async -> HealthReport,
        metrics: DaemonMetrics,
        logger: Logger,
        limits: OperatorHTTPServer.Limits = .init(),
        onServerRunning: @escaping @Sendable (ListenAddress) async -> Void = { _ in }
    ) -> OperatorHTTPServer {
        OperatorHTTPServer(listen: listen, limits: limits) { request in
            await respond(to: request, health: health, metrics: metrics)
        } onListening: { bound in
            logger.notice("metrics and health listening", metadata: ["http.address": "\(bound)"])
            await onServerRunning(bound)
        }
    }

    /// The routes.
    static func respond(
        to request: OperatorHTTPRequest,
        health: @Sendable () async -> HealthReport,
        metrics: DaemonMetrics
    ) async -> OperatorHTTPResponse {
        let route = request.path
        guard route == "/metrics" || route == "/healthz" else {
            return .text(404, "no such path: \(route) (try /metrics or /healthz)")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "\(route) answers GET and HEAD", headers: [.init("Allow", "GET, HEAD")])
        }
        let report = await health()
        if route == "/metrics" {
            return OperatorHTTPResponse(status: 200, contentType: metricsContentType, body: metrics.render(report))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(report)) ?? Data("{\"status\":\"unavailable\"}".utf8)
        return OperatorHTTPResponse(
            status: report.isHealthy ? 200 : 503,
            contentType: "application/json",
            headers: [.init("Cache-Control", "no-store")],
            body: Array(body) + [UInt8(ascii: "\n")]
        )
    }
}
