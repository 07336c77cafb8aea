/// A serial port the gateway should supervise, as found by udev discovery or named in the config.
public struct ModemPort: Sendable, Hashable, Codable {
    /// Where the port came from.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// Enumerated or hot-plugged through libudev.
        case udev
        /// Listed under `[[ports]]` in the config file (on-board UARTs, simulator ptys).
        case config
    }

    /// The device node the supervisor opens, e.g. `/dev/ttyUSB2`.
    public var path: String
    /// Groups the interfaces of one physical module (the USB device's syspath, or nil when unknown).
    public var deviceKey: String?
    /// A dialect hint from discovery (e.g. `quectel-bg9x`), nil when only a probe can tell.
    public var dialectHint: String?
    /// Baud rates to try first (static ports on UARTs); empty uses the probe's default order.
    public var baudRates: [Int]
    public var origin: Origin
    /// Free-form facts from discovery for logs and `nbgw modem show` (VID:PID, interface, serial, links).
    public var attributes: [String: String]

    public init(
        path: String,
        deviceKey: String? = nil,
        dialectHint: String? = nil,
        baudRates: [Int] = [],
        origin: Origin,
        attributes: [String: String] = [:]
    ) {
        self.path = path
        self.deviceKey = deviceKey
        self.dialectHint = dialectHint
        self.baudRates = baudRates
        self.origin = origin
        self.attributes = attributes
    }
}
