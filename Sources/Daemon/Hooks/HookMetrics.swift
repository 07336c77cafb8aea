import Prometheus

/// The hooks' series in the daemon's Prometheus registry: runs by result, and state changes
/// dropped from a full queue. Every series exists from the start at 0, so that `rate()` and
/// `increase()` see the first event.
final class HookMetrics: Sendable {
    static let results = ["ok", "failed", "timeout", "cancelled", "error"]

    private let runs: [String: Counter]
    private let dropped: Counter

    static var runsDescriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "nbgw",
            subsystem: "hook",
            metricName: "runs",
            unitName: "total",
            helpText: "State-change hook runs by result: ok, failed (non-zero status or a signal), timeout, "
                + "cancelled (the daemon stopped), error (could not start)."
        )
    }
    static var droppedDescriptor: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "nbgw",
            subsystem: "hook",
            metricName: "dropped",
            unitName: "total",
            helpText: "Modem state changes dropped from the full hook queue (the oldest first); their hooks never ran."
        )
    }

    init(registry: PrometheusCollectorRegistry) {
        var runs: [String: Counter] = [:]
        for result in Self.results {
            runs[result] = registry.makeCounter(descriptor: Self.runsDescriptor, labels: [("result", result)])
        }
        self.runs = runs
        dropped = registry.makeCounter(descriptor: Self.droppedDescriptor)
    }

    func count(_ result: HookResult) {
        runs[result.resultLabel]?.increment()
    }

    func countDropped() {
        dropped.increment()
    }
}
