import Cloud
import Foundation
import Logging

/// Kii Thing-IF behind ``Cloud/CloudService`` (docs/cloud.md, "Kii Thing-IF"): remote work only.
///
/// - ``register(_:attempt:)`` onboards the module by owner: vendor thing id = IMEI, thing
///   password = the module's secret from the store, owner = the gateway's owner. Kii's thing id is
///   the device id, the thing's access token the module's credential, the IMEI the label code.
/// - ``send(_:attempt:)`` makes the bound account's Kii user (login name = account name) an owner
///   of the thing, or removes it, acting as the thing (its access token).
/// - ``resolveLabel(_:attempt:)`` refuses: Kii has no label service; labels resolve from the store.
/// - ``inventory(of:)`` asks Kii about the store's modules and their owners (Kii cannot be asked
///   to list a gateway's things, so the inventory is not complete).
///
/// Kii takes no idempotency keys; each operation is idempotent of itself (onboarding the same
/// vendor thing id with the same password answers the same thing; adding an owner twice or
/// removing an absent one changes nothing), which is what the outbox's exactly-once needs.
/// Call ``shutdown()`` when done: it owns an HTTP client.
public final class KiiCloud: CloudService {
    /// What `--cloud` specs of this kind start with.
    public static let urlPrefix = "kii+"
    /// The thing type of a module whose model is unknown.
    public static let defaultThingType = "nb-iot-module"

    public let configuration: KiiConfiguration
    let client: KiiHTTPClient
    let logger: Logger

    /// - Parameters:
    ///   - logger: where calls and retries are logged (never tokens or passwords); nil logs nothing.
    ///   - clock: retry sleeps happen on it (tests pass a manual clock: no real waiting).
    ///   - jitter: a number in [0, 1) per retry delay.
    public init(
        configuration: KiiConfiguration,
        logger: Logger? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        let logger = logger ?? Logger(label: "nbgw.cloud.kii", factory: { _ in SwiftLogNoOpLogHandler() })
        self.configuration = configuration
        self.logger = logger
        self.client = KiiHTTPClient(configuration: configuration, clock: clock, jitter: jitter, logger: logger)
    }

    public var name: String { "kii \(configuration.site) app \(configuration.appID)" }

    public var labelBase: String { configuration.labelBase }

    /// Owners must follow local bindings: every change goes through the caller's outbox.
    public var syncsBindings: Bool { true }
    /// Owners are added with the thing's password, which an app that requires it checks.
    public var wantsModuleSecret: Bool { true }

    public func shutdown() async {
        await client.shutdown()
    }

    /// The quick policy for a call someone waits for (``Cloud/CloudAttempt/Patience/interactive``).
    public var interactivePolicy: RetryPolicy {
        RetryPolicy(
            maxAttempts: min(2, configuration.retryPolicy.maxAttempts),
            initialDelay: configuration.retryPolicy.initialDelay,
            maximumDelay: .seconds(1)
        )
    }

    func policy(_ attempt: CloudAttempt) -> RetryPolicy {
        attempt.patience == .interactive ? interactivePolicy : configuration.retryPolicy
    }

    /// A Kii thing type from a module's model: letters, digits, `-`, `_` and `.` (other characters
    /// become `-`), at most 100; ``defaultThingType`` without a model.
    public static func thingType(model: String?) -> String {
        guard let model, !model.isEmpty else { return defaultThingType }
        let mapped = model.unicodeScalars.prefix(100).map { scalar -> Character in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".": Character(scalar)
            default: "-"
            }
        }
        return String(mapped)
    }

    /// The cloud's answer as the outbox keeps it.
    static func answer(_ object: [String: String]) -> String {
        String(decoding: KiiAPI.encode(object), as: UTF8.self)
    }
}
