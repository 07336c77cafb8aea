import DeviceIdentity

/// What a cloud says a label names (``CloudService/resolveLabel(_:attempt:)``): the device, and,
/// when the cloud tells, the module's identity as it was registered (by any gateway of a fleet),
/// so that a gateway whose store never saw the module can record it and bind it under its own
/// rules (product allow-lists, one owner) instead of refusing an unknown device.
public struct CloudResolvedLabel: Sendable, Equatable {
    /// The device the label names.
    public var deviceID: DeviceID
    /// The module as registered (its IMEI, and product when known); nil when the cloud does not say.
    public var identity: ModuleIdentity?

    public init(deviceID: DeviceID, identity: ModuleIdentity? = nil) {
        self.deviceID = deviceID
        self.identity = identity
    }
}
