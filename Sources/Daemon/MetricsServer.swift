import Foundation
import Hummingbird
import Logging

/// The operator's HTTP endpoint (loopback by default, its own port): `GET /metrics` in the
/// Prometheus text format, `GET /healthz` as a ``HealthReport`` (200, or 503 when the store is
/// unusable). The application is a ServiceLifecycle `Service`.
public enum MetricsServer {
    /// The Prometheus text exposition format's content type.
    public static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Builds the application.
    ///
    /// - Parameters:
    ///   - health: the current report (asked at every request of either route).
    ///   - metrics: refreshed from the report, then rendered, at every `/metrics` request.
    ///   - onServerRunning: called with the bound address once the listener is up (port 0 picks one).
    public static func buildApplication(
        listen: ListenAddress,
        health: @escaping @Sendable () async -> HealthReport,
        metrics: DaemonMetrics,
        logger: Logger,
        onServerRunning: @escaping @Sendable (ListenAddress) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            metrics.record(await health())
            let text = metrics.registry.emitToBuffer()
            return Response(
                status: .ok,
                headers: [.contentType: metricsContentType],
                body: .init(byteBuffer: ByteBuffer(bytes: text))
            )
        }
        router.get("/healthz") { _, _ -> Response in
            let report = await health()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let body = (try? encoder.encode(report)) ?? Data("{\"status\":\"unavailable\"}".utf8)
            return Response(
                status: report.isHealthy ? .ok : .serviceUnavailable,
                headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: body + Data("\n".utf8)))
            )
        }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(listen.host, port: listen.port),
                serverName: "nbgwd"
            ),
            onServerRunning: { channel in
                let bound = ListenAddress(host: listen.host, port: channel.localAddress?.port ?? listen.port)
                logger.notice("metrics and health listening", metadata: ["http.address": "\(bound)"])
                await onServerRunning(bound)
            },
            logger: logger
        )
    }
}
