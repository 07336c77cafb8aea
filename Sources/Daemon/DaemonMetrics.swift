import Prometheus
import Synchronization

/// The daemon's own series in the Prometheus registry, refreshed at every scrape of `/metrics`:
/// whether the store is usable, and the process's memory and CPU time. The gateway's series
/// (`nbgw_modems{state}`, registrations, AT commands, errors and timeouts) reach the same registry
/// through swift-metrics, which `nbgwd` bootstraps with a `PrometheusMetricsFactory` over the same registry.
public final class DaemonMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let lastCPUSeconds = Mutex<Double>(0)

    static var storeUp: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "nbgw",
            metricName: "store",
            unitName: "up",
            helpText: "1 when the SQLite store is usable, else 0."
        )
    }
    static var startTime: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "nbgw",
            subsystem: "daemon",
            metricName: "start_time",
            unitName: "seconds",
            helpText: "Start time of nbgwd in seconds since the Unix epoch."
        )
    }
    static var resident: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "process",
            metricName: "resident_memory",
            unitName: "bytes",
            helpText: "Resident memory size in bytes."
        )
    }
    static var peakResident: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "nbgw",
            subsystem: "process",
            metricName: "peak_resident_memory",
            unitName: "bytes",
            helpText: "Peak resident memory size (VmHWM) in bytes."
        )
    }
    static var cpu: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "process",
            metricName: "cpu_seconds",
            unitName: "total",
            helpText: "User and system CPU time spent in seconds."
        )
    }

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Sets the start time series.
    public func recordStart(epochSeconds: Double) {
        registry.makeGauge(descriptor: Self.startTime).set(to: epochSeconds)
    }

    /// Updates the series from a health report and the process statistics.
    public func record(_ report: HealthReport, process: ProcessStatistics = .current()) {
        registry.makeGauge(descriptor: Self.storeUp).set(to: report.isHealthy ? 1 : 0)
        if let resident = process.residentBytes {
            registry.makeGauge(descriptor: Self.resident).set(to: Double(resident))
        }
        if let peak = process.peakResidentBytes {
            registry.makeGauge(descriptor: Self.peakResident).set(to: Double(peak))
        }
        if let cpu = process.cpuSeconds {
            let delta = lastCPUSeconds.withLock { last in
                defer { last = max(last, cpu) }
                return max(0, cpu - last)
            }
            registry.makeCounter(descriptor: Self.cpu).increment(by: delta)
        }
    }
}
