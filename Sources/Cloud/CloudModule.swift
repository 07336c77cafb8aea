import DeviceIdentity

/// A module to register with a cloud (``CloudService/register(_:attempt:)``).
public struct CloudModule: Sendable, Equatable {
    public var identity: ModuleIdentity
    /// The device id and label code the store already holds for this IMEI: a cloud that mints ids
    /// keeps them, one that assigns its own may use them as a hint.
    public var knownDeviceID: String?
    public var knownLabelCode: String?
    /// A secret the gateway generated for this module once and keeps in its store (a cloud that
    /// authenticates things by password, such as Kii Thing-IF, registers it); nil for a cloud that
    /// does not sync (the embedded one). Never logged.
    public var secret: String?

    public init(
        identity: ModuleIdentity,
        knownDeviceID: String? = nil,
        knownLabelCode: String? = nil,
        secret: String? = nil
    ) {
        self.identity = identity
        self.knownDeviceID = knownDeviceID
        self.knownLabelCode = knownLabelCode
        self.secret = secret
    }
}

extension CloudModule: CustomStringConvertible {
    /// The module without its secret.
    public var description: String {
        "CloudModule(imei: \(identity.imei), knownDeviceID: \(knownDeviceID ?? "-"), secret: "
            + (secret == nil ? "none" : "<redacted>") + ")"
    }
}
