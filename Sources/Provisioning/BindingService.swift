import Cloud
import DeviceIdentity
import Logging
import Metrics
import NBGWCore
import Pairing
import Registry

/// The one code path from a scanned QR to a binding, shared by the CLI, the HTTP ingest API and
/// the daemon: parse → resolve → bind under the seed's rules, local first.
///
/// - **Resolve**: a label under the cloud's prefix whose code the store holds (a module this
///   gateway registered, or one it has seen) resolves from the store, with no round trip. Only a
///   label the store has never seen goes to the cloud (``Cloud/CloudService/resolveLabel(_:attempt:)``),
///   and a failure says so.
/// - **Bind**: the local bind and, for a cloud that syncs, its outbox row commit in one
///   transaction (``Registry/Registry/Bindings-swift.struct/bindInGroup(_:timeout:queueForCloud:)``).
///   Then the row is sent while the caller waits at most ``cloudWait`` (default 2 s): whatever the
///   cloud does, the answer comes within that budget, `synced` or `queued` (the outbox sends the
///   rest).
/// - **Unbind**: the same, local first.
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

    /// The default of ``cloudWait``: long enough for a reachable cloud's two calls of a bind
    /// (a pairing token, then the bind), short enough for a bench scanning a tray of modules.
    public static let defaultCloudWait: Duration = .seconds(2)

    public let cloud: any CloudService
    public let registry: Registry
    /// Measures the activation budget (`--timeout`) and the cloud wait; injected so tests control time.
    public let clock: any Clock<Duration>
    /// Where the bind counters go; nil: the process's bootstrapped `MetricsSystem` at the time of each bind.
    public let metrics: (any MetricsFactory)?
    /// How long a bind or unbind waits for a syncing cloud after committing locally.
    public let cloudWait: Duration
    /// Sends just-committed outbox rows.
    public let sender: OutboxSender

    /// - Parameters:
    ///   - cloudWait: how long a bind waits for a syncing cloud after its local commit (`--cloud-wait`,
    ///     `[cloud] sync_wait`).
    ///   - logger: where unsent outbox rows are logged; nil logs nothing.
    public init(
        cloud: any CloudService,
        registry: Registry,
        clock: any Clock<Duration> = ContinuousClock(),
        metrics: (any MetricsFactory)? = nil,
        cloudWait: Duration = BindingService.defaultCloudWait,
        logger: Logger? = nil
    ) {
        self.cloud = cloud
        self.registry = registry
        self.clock = clock
        self.metrics = metrics
        self.cloudWait = cloudWait
        self.sender = OutboxSender(registry: registry, cloud: cloud, logger: logger)
    }

    /// Parses a payload and resolves a label (`nbgw qr parse`): from the store when it knows the
    /// label, else through the cloud.
    public func parse(_ qr: String) async throws(NBGWError) -> QRPayload {
        try await resolve(try QRPayloadParser.parse(qr), budget: BindingRules.defaultActivationTimeout)
    }

    /// A label made concrete: the device it names, from the store when the label is this cloud's
    /// and its code is known here, else from the cloud within `budget`. Other payloads pass through.
    public func resolve(_ payload: QRPayload, budget: Duration) async throws(NBGWError) -> QRPayload {
        if case .imei(let imei) = payload { return try resolve(imei) }
        guard case .label(let label) = payload else { return payload }
        let ours = label.base.lowercased() == cloud.labelBase.lowercased()
        if ours, let device = try registry.directory.device(labelCode: label.code) {
            do {
                return .nbBind(
                    NBBindPayload(deviceID: try DeviceID(device.deviceID), origin: .label, labelURL: label.url)
                )
            } catch {
                throw NBGWError(.internalError, "stored device id \(device.deviceID) is invalid: \(error)")
            }
        }
        guard cloud.syncsBindings else {
            // The embedded cloud's labels all live in the store: there is no one else to ask.
            throw ours ? CloudLabels.unknown(label) : CloudLabels.foreign(label, base: cloud.labelBase)
        }
        let attempt = CloudAttempt(idempotencyKey: IdempotencyKey.make(), patience: .interactive)
        let cloud = self.cloud
        let (result, inTime) = await Budget.run(budget, on: clock) {
            () async -> Result<CloudResolvedLabel, CloudFailure> in
            do throws(CloudFailure) {
                return .success(try await cloud.resolveLabel(label, attempt: attempt))
            } catch {
                return .failure(error)
            }
        }
        let unseen =
            "label \(label.url.escapedForDisplay()) is not in this gateway's store (no module registered or seen "
            + "here has code \(label.code.escapedForDisplay())), so only the cloud can resolve it"
        switch result {
        case .success(let resolved):
            try recordUnseen(resolved, label: label)
            return .nbBind(NBBindPayload(deviceID: resolved.deviceID, origin: .label, labelURL: label.url))
        case .failure where !inTime:
            throw NBGWError(
                .timeout,
                "\(unseen), and it did not answer within \(Budget.describe(budget)); retry when it is reachable"
            )
        case .failure(let failure) where failure.kind == .refused:
            throw failure.error
        case .failure(let failure):
            throw NBGWError(failure.error.code, "\(unseen), and it could not: \(failure.error.message)")
        }
    }

    /// An IMEI made concrete: the module this gateway's store knows by it, else the IMEI as it
    /// came (`nbgw qr parse` reports it; a bind refuses it as an unknown device).
    private func resolve(_ imei: IMEI) throws(NBGWError) -> QRPayload {
        guard let device = try registry.directory.device(imei: imei.digits) else { return .imei(imei) }
        do {
            return .nbBind(NBBindPayload(deviceID: try DeviceID(device.deviceID), origin: .imei, imei: imei.digits))
        } catch {
            throw NBGWError(.internalError, "stored device id \(device.deviceID) is invalid: \(error)")
        }
    }

    /// A module another gateway of the fleet registered, recorded here as the cloud registered it
    /// (its ids, label code, IMEI and product) so that the bind that follows runs under this
    /// gateway's rules like any other; nothing when the store holds it already or the cloud did
    /// not say who it is (the bind then says the device is unknown).
    private func recordUnseen(_ resolved: CloudResolvedLabel, label: LabelReference) throws(NBGWError) {
        guard let identity = resolved.identity, try registry.directory.device(id: resolved.deviceID.rawValue) == nil
        else { return }
        _ = try registry.directory.recordRegistration(
            identity,
            deviceID: resolved.deviceID,
            labelCode: label.code,
            minted: false
        )
    }

    /// The module a payload names, as far as this gateway's store knows it without asking the cloud:
    /// an NB bind's device (its id even when the store has never seen it), or the device of a label
    /// of this cloud the store holds. Nil for anything else. What a refused scan's report row
    /// names, so an operator can find the module whatever went wrong.
    public func localDevice(qr: String) -> (deviceID: String, imei: String?)? {
        guard let parsed = try? QRPayloadParser.parse(qr) else { return nil }
        switch parsed {
        case .nbBind(let nb):
            let record = try? registry.directory.device(id: nb.deviceID.rawValue)
            return (nb.deviceID.rawValue, record?.imei)
        case .label(let label):
            guard label.base.lowercased() == cloud.labelBase.lowercased(),
                let record = try? registry.directory.device(labelCode: label.code)
            else { return nil }
            return (record.deviceID, record.imei)
        case .matter:
            return nil
        case .imei(let imei):
            guard let record = try? registry.directory.device(imei: imei.digits) else { return nil }
            return (record.deviceID, record.imei)
        }
    }

    /// The QR payload printed on a registered device's label.
    public func labelPayload(for device: DeviceRecord) -> String {
        cloud.labelBase + device.labelCode
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
    /// here, as for a QR.
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
        let payload = try await resolve(parsed, budget: timeout)
        let deviceID: DeviceID
        switch payload {
        case .nbBind(let nb):
            deviceID = nb.deviceID
        case .matter:
            throw NBGWError.matterIsNotNB
        case .label(let label):
            throw NBGWError(.qrProtocolNotRecognized, "label \(label.url.escapedForDisplay()) could not be resolved")
        case .imei(let imei):
            throw IMEI.unknownError(digits: imei.digits)
        }
        let left = remaining()
        guard left > .zero else {
            throw NBGWError(
                .timeout,
                "activation did not finish within \(timeout): resolving the QR took the whole budget; retry"
            )
        }
        let synced = try await registry.bindings.bindInGroup(
            BindCommand(
                deviceID: deviceID,
                account: account,
                home: home,
                token: token,
                source: source,
                operator: `operator`,
                ingest: ingest
            ),
            timeout: left,
            queueForCloud: cloud.syncsBindings
        )
        guard let entry = synced.outboxEntry else { return CloudBindOutcome(outcome: synced.change) }
        let sync = await sender.sendNow(entry, budget: min(cloudWait, max(remaining(), .zero)), clock: clock)
        return CloudBindOutcome(outcome: synced.change, sync: sync)
    }

    /// Removes a device's binding, locally first; for a cloud that syncs, the cloud unbind is
    /// queued in the same transaction and sent within ``cloudWait``.
    public func unbind(
        deviceID: String,
        source: BindingSource,
        operator: String? = nil
    ) async throws(NBGWError) -> CloudUnbindOutcome {
        let synced = try registry.bindings.unbind(
            deviceID: deviceID,
            source: source,
            operator: `operator`,
            queueForCloud: cloud.syncsBindings
        )
        guard let entry = synced.outboxEntry else { return CloudUnbindOutcome(binding: synced.change) }
        let sync = await sender.sendNow(entry, budget: cloudWait, clock: clock)
        return CloudUnbindOutcome(binding: synced.change, sync: sync)
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
