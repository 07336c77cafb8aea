/// What a cellular module says about itself: the facts registration sends to the cloud.
///
/// IMEI from `AT+CGSN` (3GPP TS 27.007 §5.4), IMSI from `AT+CIMI` (§5.6), manufacturer, model and
/// firmware from `AT+CGMI`/`AT+CGMM`/`AT+CGMR` (§5.1–§5.3), ICCID from the vendor's command.
public struct ModuleIdentity: Hashable, Sendable, Codable {
    public var imei: IMEI
    public var imsi: IMSI?
    public var iccid: ICCID?
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    /// The cloud product the module belongs to (a home's allow-list names these).
    public var productID: String?

    public init(
        imei: IMEI,
        imsi: IMSI? = nil,
        iccid: ICCID? = nil,
        manufacturer: String? = nil,
        model: String? = nil,
        firmware: String? = nil,
        productID: String? = nil
    ) {
        self.imei = imei
        self.imsi = imsi
        self.iccid = iccid
        self.manufacturer = manufacturer
        self.model = model
        self.firmware = firmware
        self.productID = productID
    }
}
