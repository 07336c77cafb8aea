/// A generic USB-UART bridge chip. Its IDs say nothing about what is behind it: an evaluation board's
/// BC95, a SARA-R5 on a breakout, or no modem at all (a Zigbee stick, an ESP32, a barcode scanner). So
/// its ports are probed by AT only when the operator opts them in (``GenericBridgeMode``).
public struct SerialBridge: Sendable, Hashable {
    /// The chip family: "CP210x".
    public var name: String
    /// Four lower-case hex digits.
    public var vendorID: String
    /// The products of the vendor that are this bridge; nil: every product of the vendor.
    public var productIDs: [String]?
    /// Kernel drivers that only serve this bridge family; a port on one of them is this bridge
    /// whatever its IDs (a CP2105 `10c4:ea70` is still `cp210x`). Empty for generic drivers.
    public var drivers: [String]

    public init(name: String, vendorID: String, productIDs: [String]?, drivers: [String]) {
        self.name = name
        self.vendorID = vendorID.lowercased()
        self.productIDs = productIDs?.map { $0.lowercased() }
        self.drivers = drivers
    }

    /// Whether `port` sits on this bridge, by IDs or by driver.
    public func matches(_ port: UdevPort) -> Bool {
        if let vendorID = port.vendorID, vendorID == self.vendorID,
            let productID = port.productID, productIDs?.contains(productID) ?? true
        {
            return true
        }
        if let driver = port.driver, drivers.contains(driver) { return true }
        return false
    }
}
