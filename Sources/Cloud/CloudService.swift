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
