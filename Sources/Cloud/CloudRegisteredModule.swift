import DeviceIdentity

/// What a cloud answered to a registration.
public struct CloudRegisteredModule: Sendable, Equatable {
    /// The device id the module is known by from now on.
    public var deviceID: DeviceID
    /// The code printed on the module's label (`labelBase + labelCode`).
    public var labelCode: String
    /// The QR payload for the module's label.
    public var labelPayload: String
    /// A credential the cloud issued to the module (a Thing-IF access token), kept in the store
    /// like a secret and handed back to ``CloudService/send(_:attempt:)``. Never logged.
    public var credential: String?
    /// True when the ids were minted for this call rather than assigned by a remote cloud: if they
    /// clash with another module's in the store, the caller may ask again for new ones.
    public var minted: Bool

    public init(
        deviceID: DeviceID,
        labelCode: String,
        labelPayload: String,
        credential: String? = nil,
        minted: Bool = false
    ) {
        self.deviceID = deviceID
        self.labelCode = labelCode
        self.labelPayload = labelPayload
        self.credential = credential
        self.minted = minted
    }
}

extension CloudRegisteredModule: CustomStringConvertible {
    public var description: String {
        "CloudRegisteredModule(deviceID: \(deviceID), labelCode: \(labelCode), credential: "
            + (credential == nil ? "none" : "<redacted>") + ")"
    }
}
