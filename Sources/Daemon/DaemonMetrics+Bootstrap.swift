import Metrics
import Prometheus

extension DaemonMetrics {
    /// Makes a Prometheus registry the process's swift-metrics backend and returns it. For the
    /// executable to call, once, before building the daemon (libraries never bootstrap metrics;
    /// `nbgwd` has no direct dependency on swift-metrics, so the call lives here).
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }
}
