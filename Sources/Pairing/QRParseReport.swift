/// The JSON shape of `nbgw qr parse --json` and `POST /v1/qr/parse` (docs/cli.md "qr parse").
public struct QRParseReport: Encodable, Sendable, Equatable {
    public struct ActionData: Encodable, Sendable, Equatable {
        public var id: String
    }

    public var kind: String
    public var actionName: String?
    public var actionData: ActionData?
    /// `json`, `url` or `label`: where an NB bind came from.
    public var origin: String?
    /// The label URL, for labels resolved by the cloud.
    public var label: String?
    /// The module's IMEI, for a code that was one (kind `imei` when no module here has it).
    public var imei: String?
    // Matter onboarding payloads (Matter Core spec §5.1.3, §5.1.4).
    public var source: String?
    public var version: Int?
    public var vendorID: Int?
    public var productID: Int?
    public var commissioningFlow: String?
    public var rendezvousInformation: Int?
    public var rendezvousMethods: [String]?
    public var discriminator: Int?
    public var discriminatorIsShort: Bool?
    public var passcode: Int?

    /// lowerCamelCase with initialisms as words (`vendorId`, as `deviceId`), the naming of every
    /// JSON key nbgw prints (docs/cli.md "Output and errors").
    enum CodingKeys: String, CodingKey {
        case kind, actionName, actionData, origin, label, imei, source, version
        case vendorID = "vendorId"
        case productID = "productId"
        case commissioningFlow, rendezvousInformation, rendezvousMethods, discriminator, discriminatorIsShort
        case passcode
    }

    /// Any payload; a label not yet resolved reports its URL as `label`, kind `label`.
    public init(_ payload: QRPayload) {
        switch payload {
        case .nbBind(let nb): self.init(nb)
        case .matter(let matter): self.init(matter)
        case .label(let reference): self.init(kind: "label", label: reference.url)
        case .imei(let imei):
            self.init(kind: "imei", label: nil)
            self.imei = imei.digits
        }
    }

    private init(kind: String, label: String?) {
        self.kind = kind
        self.label = label
    }

    public init(_ payload: NBBindPayload) {
        kind = "nb-bind"
        actionName = payload.actionName
        actionData = ActionData(id: payload.deviceID.rawValue)
        origin = payload.origin.rawValue
        label = payload.labelURL
        imei = payload.imei
    }

    public init(_ payload: MatterSetupPayload) {
        kind = "matter"
        source = payload.source.rawValue
        version = payload.version
        vendorID = payload.vendorID
        productID = payload.productID
        commissioningFlow = payload.commissioningFlow.rawValue
        rendezvousInformation = payload.rendezvousInformation
        rendezvousMethods = payload.rendezvousMethods
        discriminator = payload.discriminator
        discriminatorIsShort = payload.discriminatorIsShort
        passcode = payload.passcode
    }
}
