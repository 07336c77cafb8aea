import Metrics
import Prometheus

/// The swift-metrics backend `nbgwd` bootstraps: swift-prometheus's registry, with a `# HELP`
/// line for every series the libraries make.
///
/// Why not swift-prometheus's own `PrometheusMetricsFactory`: it registers every swift-metrics
/// handle with an empty help text, so its series (`nbgw_modems`, `nbgw_at_commands_total`, …)
/// reach `/metrics` with `# TYPE` but no `# HELP` (swift-prometheus 2.4.1 writes HELP only for
/// a non-empty text, and stops the process when one name is registered with two texts). This
/// factory registers each label with its text from ``help``; a label missing there gets no HELP
/// line, which `MetricsExpositionTests` catches.
public struct DocumentedMetricsFactory: MetricsFactory {
    public let registry: PrometheusCollectorRegistry

    /// The help text of every series the libraries make through swift-metrics.
    public static let help: [String: String] = [
        "nbgw_modems": "Supervised ports by supervisor state (probing, configuring, searching, registering, ready, "
            + "failed, absent, not_modem), from the gateway's live view.",
        "nbgw_registrations_total": "Cloud registrations of modules by result: created, existing, failed.",
        "nbgw_at_commands_total": "AT command lines written to modules (probe, bring-up, polls).",
        "nbgw_at_errors_total": "AT commands answered with a failure result (ERROR, +CME ERROR, +CMS ERROR).",
        "nbgw_at_timeouts_total": "AT commands given up on before their final result.",
        // Provisioning's BindingService.bindsCounterLabel.
        "nbgw_binds_total": "Bind requests by source (cli, csv, http, …) and result: bound, unchanged, "
            + "rejected.",
    ]

    /// Buckets of a swift-metrics `Timer` or aggregating `Recorder` (none of the libraries makes
    /// one today; swift-prometheus's defaults).
    static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
    static let valueBuckets: [Double] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// The label as the whole name (an empty unit adds nothing), with its help text.
    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: Self.help[label] ?? "")
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeFloatingPointCounter(
        label: String,
        dimensions: [(String, String)]
    ) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(
            descriptor: descriptor(label),
            labels: dimensions,
            buckets: Self.valueBuckets
        )
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: Self.durationBuckets)
    }

    public func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyRecorder(_ handler: any RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
        if let histogram = handler as? Prometheus.Histogram<Double> { registry.unregisterValueHistogram(histogram) }
    }

    public func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    public func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? Prometheus.Histogram<Duration> {
            registry.unregisterDurationHistogram(histogram)
        }
    }
}
