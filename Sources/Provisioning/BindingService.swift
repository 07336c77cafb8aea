import Cloud
import DeviceIdentity
import Metrics
import Pairing
import Registry

/// The one code path from a scanned QR to a binding, shared by the CLI, CSV batches, the HTTP
/// ingest API and the daemon: parse → resolve through the cloud → bind under the seed's rules.
///
/// Every bind it attempts is counted in `nbgw_binds_total{source, result}` (swift-metrics; the
/// process that bootstraps a metrics backend exports it): `source` is `cli`, `csv`, `http` or
/// `daemon`, `result` is `bound`, `unchanged` or `rejected` (any refusal, rule or payload).
public struct BindingService: Sendable {
    /// The `result` dimension of `nbgw_binds_total`.
    public enum BindResult: String, Sendable, CaseIterable {
        case bound
        case unchanged
        case rejected
    }

    /// The counter's label.
    public static let bindsCounterLabel = "nbgw_binds_total"

    public let cloud: any CloudService
    public let registry: Registry
    /// Measures the activation budget (`--timeout`); injected so tests control time.
    public let clock: any Clock<Duration>
    /// Where the bind counters go; nil: the process's bootstrapped `MetricsSystem` at the time of each bind.
    public let metrics: (any MetricsFactory)?

    public init(
        cloud: any CloudService,
        registry: Registry,
        clock: any Clock<Duration> = ContinuousClock(),
        metrics: (any MetricsFactory)? = nil
    ) {
        self.cloud = cloud
        self.registry = registry
        self.clock = clock
        self.metrics = metrics
    }

    /// Parses a payload and resolves labels through the cloud (`nbgw qr parse`).
    public func parse(_ qr: String) async throws(NBGWError) -> QRPayload {
        try await cloud.resolve(try QRPayloadParser.parse(qr))
    }

    /// Binds the device a QR names to `account`'s `home`.
    ///
    /// - Parameters:
    ///   - ingest: who asked over the ingest API; the bind records it in its own transaction
    ///     (``BindCommand/IngestOrigin``). Nil everywhere else.
    ///   - timeout: the activation budget (the seed's 120 s); label resolution and waiting for the
    ///     store's write lock count against it.
    public func bind(
        qr: String,
        account: String,
        home: String,
        token: String? = nil,
        source: BindingSource,
        operator: String? = nil,
        ingest: BindCommand.IngestOrigin? = nil,
        timeout: Duration = BindingRules.defaultActivationTimeout
    ) async throws(NBGWError) -> CloudBindOutcome {
        let payload: QRPayload
        do {
            payload = try QRPayloadParser.parse(qr)
        } catch {
            count(source, .rejected)
            throw error
        }
        return try await bind(
            payload,
            account: account,
            home: home,
            token: token,
            source: source,
            operator: `operator`,
            ingest: ingest,
            timeout: timeout
        )
    }

    /// ``bind(qr:account:home:token:source:operator:ingest:timeout:)`` for a payload the caller
    /// already parsed (the ingest API validates it before anything else): labels are resolved
    /// through the cloud here, as for a QR.
    public func bind(
        _ payload: QRPayload,
        account: String,
        home: String,
        token: String? = nil,
        source: BindingSource,
        operator: String? = nil,
        ingest: BindCommand.IngestOrigin? = nil,
        timeout: Duration = BindingRules.defaultActivationTimeout
    ) async throws(NBGWError) -> CloudBindOutcome {
        do {
            let result = try await attempt(
                payload,
                account: account,
                home: home,
                token: token,
                source: source,
                operator: `operator`,
                ingest: ingest,
                timeout: timeout
            )
            count(source, result.outcome.status == .bound ? .bound : .unchanged)
            return result
        } catch {
            count(source, .rejected)
            throw error
        }
    }

    private func attempt(
        _ parsed: QRPayload,
        account: String,
        home: String,
        token: String?,
        source: BindingSource,
        operator: String?,
        ingest: BindCommand.IngestOrigin?,
        timeout: Duration
    ) async throws(NBGWError) -> CloudBindOutcome {
        let remaining = BindingService.countdown(clock, from: timeout)
        let payload = try await cloud.resolve(parsed)
        let deviceID: DeviceID
        switch payload {
        case .nbBind(let nb):
            deviceID = nb.deviceID
        case .matter:
            throw NBGWError.matterIsNotNB
        case .label(let label):
            throw NBGWError(.qrProtocolNotRecognized, "label \(label.url.escapedForDisplay()) could not be resolved")
        }
        let left = remaining()
        guard left > .zero else {
            throw NBGWError(
                .timeout,
                "activation did not finish within \(timeout): resolving the QR took the whole budget; retry"
            )
        }
        return try await cloud.bindDevice(
            BindCommand(
                deviceID: deviceID,
                account: account,
                home: home,
                token: token,
                source: source,
                operator: `operator`,
                ingest: ingest
            ),
            timeout: left
        )
    }

    /// Adds `by` to `nbgw_binds_total{source, result}`: for bind paths that do not go through
    /// ``bind(qr:account:home:token:source:operator:ingest:timeout:)`` one at a time (CSV batches
    /// count a chunk's rows at once).
    public static func countBinds(
        source: BindingSource,
        result: BindResult,
        by amount: Int = 1,
        metrics: (any MetricsFactory)? = nil
    ) {
        guard amount > 0 else { return }
        let dimensions = [("source", source.rawValue), ("result", result.rawValue)]
        let counter =
            if let metrics {
                Counter(label: bindsCounterLabel, dimensions: dimensions, factory: metrics)
            } else {
                Counter(label: bindsCounterLabel, dimensions: dimensions)
            }
        counter.increment(by: amount)
    }

    private func count(_ source: BindingSource, _ result: BindResult) {
        BindingService.countBinds(source: source, result: result, metrics: metrics)
    }

    /// A closure returning the time left of `budget`, measured on `clock` from now.
    static func countdown<C: Clock>(_ clock: C, from budget: Duration) -> @Sendable () -> Duration
    where C.Duration == Duration {
        let deadline = clock.now.advanced(by: budget)
        return { clock.now.duration(to: deadline) }
    }
}
