import Cloud
import DeviceIdentity
import Foundation
import Logging
import Synchronization
import NBGWCore

/// The signed HTTP cloud (Tuya OpenAPI conventions, pairing-anchors §1.4–1.6) behind
/// ``Cloud/CloudService``: remote work only.
///
/// - ``register(_:attempt:)`` registers a module (`POST /v1.0/iot-03/nb-modules`, idempotent by
///   IMEI and by the attempt's key) and answers the cloud's device id and label code.
/// - ``resolveLabel(_:attempt:)`` is the cloud's QR parse call.
/// - ``send(_:attempt:)`` applies one committed binding change: a bind takes a pairing token of
///   the home and binds with it; an unbind drops the binding.
/// - ``inventory(of:)`` lists every module and binding the cloud holds.
///
/// The store, the outbox and the order of things are the caller's (`Provisioning`). Call
/// ``shutdown()`` when done: it owns an HTTP client.
public final class HTTPCloud: CloudService {
    public let configuration: CloudConfiguration
    let client: TuyaOpenAPIClient
    let logger: Logger
    /// False once the cloud answered the batch endpoint with 404 (``send(batch:)``).
    let batchState = Mutex(true)
    /// The quick policy for a call someone waits for (``Cloud/CloudAttempt/Patience/interactive``).
    public var interactivePolicy: RetryPolicy {
        RetryPolicy(
            maxAttempts: min(2, configuration.retryPolicy.maxAttempts),
            initialDelay: configuration.retryPolicy.initialDelay,
            maximumDelay: .seconds(1)
        )
    }

    /// A cloud over AsyncHTTPClient with the configured timeouts, the system clocks and real jitter.
    ///
    /// - Parameter logger: where requests and retries are logged (never secrets); nil logs nothing.
    public convenience init(configuration: CloudConfiguration, logger: Logger? = nil) {
        self.init(
            configuration: configuration,
            logger: logger,
            transport: AsyncHTTPClientTransport(
                connectTimeout: configuration.connectTimeout,
                maximumResponseBytes: configuration.maximumResponseBytes,
                trustedAuthorities: configuration.trustedAuthorities
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
        logger: Logger? = nil,
        transport: any CloudHTTPTransport,
        clock: any Clock<Duration> = ContinuousClock(),
        wallClock: any WallClock = SystemWallClock(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        let logger = logger ?? Logger(label: "nbgw.cloud", factory: { _ in SwiftLogNoOpLogHandler() })
        self.configuration = configuration
        batchState.withLock { $0 = configuration.useBatches }
        self.logger = logger
        self.client = TuyaOpenAPIClient(
            configuration: configuration,
            transport: transport,
            clock: clock,
            wallClock: wallClock,
            jitter: jitter,
            logger: logger
        )
    }

    /// Closes connections. The cloud must not be used afterwards.
    public func shutdown() async {
        await client.transport.shutdown()
    }

    public var name: String { configuration.baseURL }

    public var labelBase: String { configuration.labelBase }

    /// Bindings reach an HTTP cloud through the caller's outbox.
    public var syncsBindings: Bool { true }

    /// The retry policy for an attempt: the quick one when someone waits, the configured one
    /// otherwise.
    func policy(_ attempt: CloudAttempt) -> RetryPolicy {
        attempt.patience == .interactive ? interactivePolicy : configuration.retryPolicy
    }

    static func json<Value: Encodable>(_ value: Value) throws(NBGWError) -> String {
        do {
            return try CloudJSON.string(value)
        } catch {
            throw NBGWError(.internalError, "cannot encode \(Value.self) as JSON: \(error)")
        }
    }
}
