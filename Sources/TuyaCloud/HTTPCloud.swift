import Cloud
import DeviceIdentity
import Foundation
import Logging
import Pairing
import Registry

/// The signed HTTP cloud (Tuya OpenAPI conventions, pairing-anchors §1.4–1.6) behind
/// ``Cloud/CloudService``, with the local store first and the cloud kept in step through the
/// registry's outbox.
///
/// - Registration (``register(_:)``) is queued in the outbox, sent at once with the row's
///   idempotency key, and recorded locally under the cloud's device id in the same transaction
///   that marks the row done; if the cloud is unreachable the row stays queued.
/// - Binds and unbinds (``bind(_:timeout:syncNow:)``, ``unbind(deviceID:source:operator:syncNow:)``)
///   commit locally together with their outbox row, then try to reach the cloud once; what does
///   not get through is sent later by an ``OutboxDrainer``.
/// - Labels are resolved through the cloud's QR parse call (``resolve(_:)``).
///
/// Call ``shutdown()`` when done (or use ``withCloud(configuration:registry:logger:_:)``): it owns
/// an HTTP client.
public final class HTTPCloud: CloudService {
    public let configuration: CloudConfiguration
    public let registry: Registry
    let client: TuyaOpenAPIClient
    let logger: Logger
    /// The lease owner for rows this instance sends itself.
    let owner: String
    /// How long a claimed outbox row stays ours (see ``Registry/claimOutbox(owner:lease:limit:)``).
    public let outboxLease: Duration
    /// Spacing of an outbox row's later tries after transient failures: 30 s doubling to 1 h.
    public var outboxBackoff: RetryPolicy {
        RetryPolicy(maxAttempts: .max, initialDelay: .seconds(30), maximumDelay: .seconds(3600))
    }
    /// The quick policy for sending a just-committed bind or unbind while the operator waits.
    public var interactivePolicy: RetryPolicy {
        RetryPolicy(
            maxAttempts: min(2, configuration.retryPolicy.maxAttempts),
            initialDelay: configuration.retryPolicy.initialDelay,
            maximumDelay: .seconds(1)
        )
    }

    /// A cloud over AsyncHTTPClient with the configured timeouts, the system clocks and real jitter.
    ///
    /// - Parameter logger: where requests, retries and outbox activity are logged (never secrets);
    ///   nil logs nothing.
    public convenience init(configuration: CloudConfiguration, registry: Registry, logger: Logger? = nil) {
        self.init(
            configuration: configuration,
            registry: registry,
            logger: logger,
            transport: AsyncHTTPClientTransport(
                connectTimeout: configuration.connectTimeout,
                maximumResponseBytes: configuration.maximumResponseBytes
            )
        )
    }

    /// - Parameters:
    ///   - transport: how requests travel (tests pass a scripted one).
    ///   - clock: sleeps between retries happen on it (tests pass a manual clock: no real waiting).
    ///   - wallClock: the `t` header and token expiry.
    ///   - jitter: a number in [0, 1) per retry delay.
    public init(
        configuration: CloudConfiguration,
        registry: Registry,
        logger: Logger? = nil,
        transport: any CloudHTTPTransport,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: any WallClock = SystemWallClock(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        outboxLease: Duration = .seconds(300)
    ) {
        let logger = logger ?? Logger(label: "nbgw.cloud", factory: { _ in SwiftLogNoOpLogHandler() })
        self.configuration = configuration
        self.registry = registry
        self.logger = logger
        self.client = TuyaOpenAPIClient(
            configuration: configuration,
            transport: transport,
            clock: clock,
            wallClock: wallClock,
            jitter: jitter,
            logger: logger
        )
        self.owner = "nbgw-\(ProcessInfo.processInfo.processIdentifier)-\(Registry.makeIdempotencyKey().suffix(8))"
        self.outboxLease = outboxLease
    }

    /// Runs `body` with a cloud and shuts it down afterwards, also when `body` throws.
    public static func withCloud<Result: Sendable>(
        configuration: CloudConfiguration,
        registry: Registry,
        logger: Logger? = nil,
        _ body: (HTTPCloud) async throws(NBGWError) -> Result
    ) async throws(NBGWError) -> Result {
        let cloud = HTTPCloud(configuration: configuration, registry: registry, logger: logger)
        do {
            let result = try await body(cloud)
            await cloud.shutdown()
            return result
        } catch {
            await cloud.shutdown()
            throw error
        }
    }

    /// Closes connections. The cloud must not be used afterwards.
    public func shutdown() async {
        await client.transport.shutdown()
    }

    public var name: String { configuration.baseURL }

    // MARK: CloudService

    /// Registers a module with the cloud, idempotent by IMEI, and stores it locally under the
    /// cloud's device id and label code.
    ///
    /// The work goes through the outbox: if the cloud cannot be reached after the retry policy,
    /// this throws `TIMEOUT` and the registration stays queued for the drainer.
    public func register(_ identity: ModuleIdentity) async throws(NBGWError) -> CloudRegistration {
        let existing = try registry.device(imei: identity.imei.digits)
        let payload = OutboxPayload.Register(
            identity: identity,
            proposedDeviceID: existing?.deviceID,
            proposedLabelCode: existing?.labelCode
        )
        let entry = try registry.enqueueOutbox(
            Registry.OutboxRequest(
                operation: .register,
                subject: identity.imei.digits,
                payload: try Self.json(payload)
            ),
            supersedeUnfinished: true
        )
        guard let claimed = try registry.claimOutbox(id: entry.id, owner: owner, lease: outboxLease) else {
            throw NBGWError(
                .timeout,
                "the registration of IMEI \(identity.imei) is queued behind earlier cloud work for it (outbox row "
                    + "#\(entry.id)); run `nbgw cloud sync` or let the daemon send it, then register again"
            )
        }
        switch await process(claimed, owner: owner, policy: configuration.retryPolicy) {
        case .registered(let registration, let qrcode):
            return CloudRegistration(
                device: registration.device,
                labelPayload: qrcode,
                created: registration.created,
                changedFields: registration.changedFields
            )
        case .done:
            throw NBGWError(.internalError, "outbox row #\(entry.id) was not a registration")
        case .rescheduled(let error), .stopped(let error):
            throw NBGWError(
                error.code,
                error.message + "; the registration of IMEI \(identity.imei) is queued (outbox row #\(entry.id))"
            )
        case .dead(let error), .claimLost(let error):
            throw error
        }
    }

    /// Labels are resolved by the cloud's QR parse call (§1.1); an answer other than the NB-IoT
    /// bind action is `NOT_NB_DEVICE`. Other payloads pass through.
    public func resolve(_ payload: QRPayload) async throws(NBGWError) -> QRPayload {
        guard case .label(let label) = payload else { return payload }
        let parsed = try await parseQR(label.url)
        guard parsed.actionName == BindingRules.nbBindActionName else {
            throw NBGWError(
                .notNBDevice,
                "the cloud says label \(label.url.escapedForDisplay()) is a \(parsed.actionName.escapedForDisplay()) "
                    + "action, not an NB-IoT bind; pair it with the tool for its kind"
            )
        }
        do {
            return .nbBind(
                NBBindPayload(deviceID: try DeviceID(parsed.actionData.id), origin: .label, labelURL: label.url)
            )
        } catch {
            throw NBGWError(
                .internalError,
                "the cloud resolved label \(label.url.escapedForDisplay()) to an unusable device id: \(error)"
            )
        }
    }

    public func labelPayload(for device: DeviceRecord) -> String {
        configuration.labelBase + device.labelCode
    }

    static func json<Value: Encodable>(_ value: Value) throws(NBGWError) -> String {
        do {
            return try CloudJSON.string(value)
        } catch {
            throw NBGWError(.internalError, "cannot encode \(Value.self) as JSON: \(error)")
        }
    }
}
