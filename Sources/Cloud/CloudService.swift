import DeviceIdentity
import Pairing
import Registry

/// The cloud nbgw registers modules with and asks to make sense of scanned QR codes (the seed's
/// "Register the device" and "Parse QR code" steps). One interface for the embedded local cloud
/// and, later, an HTTP cloud.
public protocol CloudService: Sendable {
    /// A short name for logs and reports (`embedded`, a base URL).
    var name: String { get }

    /// Registers a module, idempotent by IMEI: the same IMEI always gets the same device id.
    func register(_ identity: ModuleIdentity) async throws(NBGWError) -> CloudRegistration

    /// The cloud's parse step: label references become NB bind payloads (or a clear error);
    /// everything else passes through unchanged.
    func resolve(_ payload: QRPayload) async throws(NBGWError) -> QRPayload

    /// The QR payload to print on a registered device's label.
    func labelPayload(for device: DeviceRecord) -> String

    /// The URL prefix of the labels this cloud issues (`…/d/`); such labels of modules registered
    /// through this gateway resolve from the store without a round trip.
    var labelBase: String { get }

    /// True when local bindings must reach this cloud through the outbox (HTTP clouds).
    var syncsBindings: Bool { get }

    /// Binds under the seed's rules, locally first; an HTTP cloud queues the cloud bind in the same
    /// transaction and tries to send it. `sync` says where the cloud stands (nil: nothing to sync).
    func bindDevice(_ command: BindCommand, timeout: Duration) async throws(NBGWError) -> CloudBindOutcome

    /// Removes a binding, locally first, then (HTTP) in the cloud through the outbox.
    func unbindDevice(
        deviceID: String,
        source: BindingSource,
        operator: String?
    ) async throws(NBGWError)
        -> CloudUnbindOutcome
}

/// A local bind and where the cloud stands on it.
public struct CloudBindOutcome: Sendable, Equatable {
    public var outcome: BindOutcome
    /// `synced`, `queued`, `failed` or nil when nothing needed syncing.
    public var syncState: String?
    public var syncMessage: String?

    public init(outcome: BindOutcome, syncState: String? = nil, syncMessage: String? = nil) {
        self.outcome = outcome
        self.syncState = syncState
        self.syncMessage = syncMessage
    }
}

/// A local unbind and where the cloud stands on it.
public struct CloudUnbindOutcome: Sendable, Equatable {
    public var binding: BindingRecord
    public var syncState: String?
    public var syncMessage: String?

    public init(binding: BindingRecord, syncState: String? = nil, syncMessage: String? = nil) {
        self.binding = binding
        self.syncState = syncState
        self.syncMessage = syncMessage
    }
}

/// Messages every cloud gives for labels, so single binds and batches say the same.
public enum CloudLabels {
    public static func foreign(_ label: LabelReference, base: String) -> NBGWError {
        NBGWError(
            .qrProtocolNotRecognized,
            "label \(label.url.escapedForDisplay()) was not issued by the configured cloud "
                + "(its labels start with \(base)); resolve it with the cloud that issued it"
        )
    }

    public static func unknown(_ label: LabelReference) -> NBGWError {
        NBGWError(
            .unknownDevice,
            "label code \(label.code.escapedForDisplay()) names no registered device; register the module first"
        )
    }
}

/// What registering a module returned.
public struct CloudRegistration: Sendable, Equatable {
    public var device: DeviceRecord
    /// The QR payload for the module's label.
    public var labelPayload: String
    /// False when the IMEI was already registered and the same device id came back.
    public var created: Bool
    public var changedFields: [String]

    public init(device: DeviceRecord, labelPayload: String, created: Bool, changedFields: [String]) {
        self.device = device
        self.labelPayload = labelPayload
        self.created = created
        self.changedFields = changedFields
    }
}
