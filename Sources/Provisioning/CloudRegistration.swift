import Registry

/// What registering a module returned (``DeviceRegistrar``).
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
