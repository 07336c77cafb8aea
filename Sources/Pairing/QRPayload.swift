import DeviceIdentity

/// What a scanned QR code resolved to (the seed's "Parse QR code" step: `{actionName, actionData}`).
public enum QRPayload: Sendable, Equatable {
    /// An NB-IoT device to bind: `actionName == "device_net_conn_bind_nb"`, `actionData.id` is the device id.
    case nbBind(NBBindPayload)
    /// A label URL whose meaning only the cloud that issued it knows; resolve it through the cloud.
    case label(LabelReference)
    /// A Matter onboarding payload (`MT:` QR code or manual pairing code). Not an NB-IoT device.
    case matter(MatterSetupPayload)
    /// A module's own IMEI as its maker prints it (15 digits with a valid Luhn check digit,
    /// optionally `IMEI:`-prefixed): the module this gateway's store knows by that IMEI.
    case imei(IMEI)
}

/// The NB-IoT bind action and where it was read from.
public struct NBBindPayload: Sendable, Equatable {
    public enum Origin: String, Sendable, Codable {
        /// The parse-result JSON itself.
        case json
        /// A URL carrying the action and id as query items.
        case url
        /// A label URL resolved by the cloud that issued it.
        case label
        /// The module's IMEI, resolved from the gateway's store.
        case imei
    }

    public var deviceID: DeviceID
    public var origin: Origin
    /// The label URL, when the payload came from one.
    public var labelURL: String?
    /// The IMEI, when the payload was one.
    public var imei: String?

    public init(deviceID: DeviceID, origin: Origin, labelURL: String? = nil, imei: String? = nil) {
        self.deviceID = deviceID
        self.origin = origin
        self.labelURL = labelURL
        self.imei = imei
    }

    public var actionName: String { BindingRules.nbBindActionName }
}
