import DeviceIdentity
import Foundation

/// A registered module: the cloud's device id and the identity it registered with.
public struct DeviceRecord: Sendable, Equatable, Codable {
    public var deviceID: String
    public var imei: String
    public var imsi: String?
    public var iccid: String?
    public var manufacturer: String?
    public var model: String?
    public var firmware: String?
    public var productID: String?
    /// The code printed on the module's pairing label (see `EmbeddedCloud.labelURL(for:)`).
    public var labelCode: String
    public var registeredAt: Date
    public var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId"
        case productID = "productId"
        case imei, imsi, iccid, manufacturer, model, firmware, labelCode, registeredAt, updatedAt
    }
}
