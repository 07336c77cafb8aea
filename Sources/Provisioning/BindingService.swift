import Cloud
import DeviceIdentity
import Pairing
import Registry

/// The one code path from a scanned QR to a binding, shared by the CLI, CSV batches, the HTTP
/// ingest API and the daemon: parse → resolve through the cloud → bind under the seed's rules.
public struct BindingService: Sendable {
    public let cloud: any CloudService
    public let registry: Registry
    /// Measures the activation budget (`--timeout`); injected so tests control time.
    public let clock: any Clock<Duration>

    public init(cloud: any CloudService, registry: Registry, clock: any Clock<Duration> = ContinuousClock()) {
        self.cloud = cloud
        self.registry = registry
        self.clock = clock
    }

    /// Parses a payload and resolves labels through the cloud (`nbgw qr parse`).
    public func parse(_ qr: String) async throws(NBGWError) -> QRPayload {
        try await cloud.resolve(try QRPayloadParser.parse(qr))
    }

    /// Binds the device a QR names to `account`'s `home`.
    ///
    /// - Parameter timeout: the activation budget (the seed's 120 s); parsing, label resolution and
    ///   waiting for the store's write lock all count against it.
    public func bind(
        qr: String,
        account: String,
        home: String,
        token: String? = nil,
        source: BindingSource,
        operator: String? = nil,
        timeout: Duration = BindingRules.defaultActivationTimeout
    ) async throws(NBGWError) -> CloudBindOutcome {
        let remaining = BindingService.countdown(clock, from: timeout)
        let payload = try await parse(qr)
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
                operator: `operator`
            ),
            timeout: left
        )
    }

    /// A closure returning the time left of `budget`, measured on `clock` from now.
    static func countdown<C: Clock>(_ clock: C, from budget: Duration) -> @Sendable () -> Duration
    where C.Duration == Duration {
        let deadline = clock.now.advanced(by: budget)
        return { clock.now.duration(to: deadline) }
    }
}
