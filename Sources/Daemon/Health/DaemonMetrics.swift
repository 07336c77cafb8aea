import NBGWCore
import Prometheus
import Registry
import Synchronization

/// The daemon's own series in the Prometheus registry, refreshed at every scrape of `/metrics`:
/// whether the store is usable, the process's memory and CPU time, the per-modem series from the
/// modem table (``ModemSeries``), the HTTP cloud's outbox depth, and the build. The gateway's
/// series (`nbgw_modems{state}`, registrations, AT commands, errors and timeouts) reach the same
/// registry through swift-metrics, which `nbgwd` bootstraps with a ``DocumentedMetricsFactory``
/// over the same registry.
public final class DaemonMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let lastCPUSeconds = Mutex<Double>(0)
    /// The per-modem series registered at the last scrape, by name and label values; the lock
    /// also makes one scrape's refresh and rendering one step.
    private let modemGauges = Mutex<[ModemSeries.Sample.Key: Gauge]>([:])

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

    static var outboxPending: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "nbgw",
            subsystem: "cloud",
            metricName: "outbox",
            unitName: "pending",
            helpText: "Binds, unbinds and registrations the HTTP cloud has yet to accept (pending and in flight); "
                + "0 with the embedded cloud."
        )
    }
    static var buildInfo: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "nbgw",
            metricName: "build",
            unitName: "info",
            helpText: "Always 1: the nbgw release of this daemon, as the version label."
        )
    }

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        registry.makeGauge(descriptor: Self.buildInfo, labels: [("version", NBGWVersion.current)]).set(to: 1)
    }

    /// Refreshes the series from `report` and renders the whole registry in the Prometheus text
    /// format, as one step (two scrapes at once do not interleave their refreshes).
    public func render(_ report: HealthReport, process: ProcessStatistics = .current()) -> [UInt8] {
        modemGauges.withLock { gauges in
            record(report, process: process)
            refreshModems(report.records, &gauges)
            return registry.emitToBuffer()
        }
    }

    /// Sets the per-modem series to `records`' samples: new ones registered, gone ones
    /// unregistered (a family with no series left disappears, HELP and TYPE included).
    private func refreshModems(_ records: [ModemRecord], _ gauges: inout [ModemSeries.Sample.Key: Gauge]) {
        var wanted: [ModemSeries.Sample.Key: Double] = [:]
        for sample in ModemSeries.samples(records) { wanted[sample.key] = sample.value }
        for (key, gauge) in gauges where wanted[key] == nil {
            registry.unregisterGauge(gauge)
            gauges[key] = nil
        }
        for (key, value) in wanted {
            let gauge =
                gauges[key]
                ?? registry.makeGauge(
                    descriptor: ModemSeries.descriptor(key.name),
                    labels: Array(zip(ModemSeries.labelNames[key.name] ?? [], key.labels))
                )
            gauge.set(to: value)
            gauges[key] = gauge
        }
    }

    /// Sets the start time series.
    public func recordStart(epochSeconds: Double) {
        registry.makeGauge(descriptor: Self.startTime).set(to: epochSeconds)
    }

    /// Updates the series from a health report and the process statistics.
    public func record(_ report: HealthReport, process: ProcessStatistics = .current()) {
        registry.makeGauge(descriptor: Self.storeUp).set(to: report.isHealthy ? 1 : 0)
        registry.makeGauge(descriptor: Self.outboxPending).set(to: Double(report.outboxPending))
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
