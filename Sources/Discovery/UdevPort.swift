/// A serial port as udev describes it: the device node, where it hangs in sysfs, and the USB facts
/// the candidate policy and the logs need.
///
/// Built from a `tty` device and its parents: the USB interface (`bInterfaceNumber`, its driver)
/// and the USB device (`idVendor`, `idProduct`, `serial`). A port with no USB parent
/// (`/dev/ttyS0`, `/dev/ttyAMA0`, virtual consoles) has nil USB fields.
public struct UdevPort: Sendable, Hashable, Codable {
    /// The node to open, e.g. `/dev/ttyUSB2`.
    public var devnode: String
    /// The device's sysfs path, e.g. `/sys/devices/pci0000:00/…/1-1:1.2/ttyUSB2/tty/ttyUSB2`.
    public var syspath: String
    /// Always `tty` for the ports discovery reports.
    public var subsystem: String
    /// The kernel driver of the USB interface (`option`, `qcserial`, `cdc_acm`, `cp210x`, `ch341`,
    /// `ftdi_sio`, `xr_serial`, `pl2303`…), or of the nearest parent with one for non-USB ports.
    public var driver: String?
    /// USB vendor ID, four lower-case hex digits (`2c7c`).
    public var vendorID: String?
    /// USB product ID, four lower-case hex digits (`0700`).
    public var productID: String?
    /// `bInterfaceNumber` of the USB interface the tty belongs to (sysfs prints it in hex: `0a` is 10).
    public var interfaceNumber: Int?
    /// The USB serial number (`ID_SERIAL_SHORT`, else the USB device's `serial` attribute).
    public var serial: String?
    /// The USB device's manufacturer string (its `manufacturer` attribute, else udev's `ID_VENDOR_ENC`
    /// decoded): `ITead`, `Quectel`.
    public var manufacturer: String?
    /// The USB device's product string (its `product` attribute, else udev's `ID_MODEL_ENC` decoded):
    /// `Sonoff Zigbee 3.0 USB Dongle Plus`.
    public var product: String?
    /// The USB device's syspath: every interface of one module shares it.
    public var usbDeviceSyspath: String?
    /// The node's symlinks (`DEVLINKS`): `/dev/serial/by-id/…`, `/dev/serial/by-path/…`, `/dev/nbgw/…`.
    public var links: [String]
    /// The udev properties discovery keeps (see ``UdevPort/keptPropertyPrefixes``): what our rules set
    /// (`ID_NBGW_*`), ModemManager's hints (`ID_MM_*`), and udev's USB identification (`ID_USB_*`, …).
    public var properties: [String: String]

    public init(
        devnode: String,
        syspath: String,
        subsystem: String = "tty",
        driver: String? = nil,
        vendorID: String? = nil,
        productID: String? = nil,
        interfaceNumber: Int? = nil,
        serial: String? = nil,
        manufacturer: String? = nil,
        product: String? = nil,
        usbDeviceSyspath: String? = nil,
        links: [String] = [],
        properties: [String: String] = [:]
    ) {
        self.devnode = devnode
        self.syspath = syspath
        self.subsystem = subsystem
        self.driver = driver
        self.vendorID = vendorID
        self.productID = productID
        self.interfaceNumber = interfaceNumber
        self.serial = serial
        self.manufacturer = manufacturer
        self.product = product
        self.usbDeviceSyspath = usbDeviceSyspath
        self.links = links
        self.properties = properties
    }

    /// Property name prefixes copied into ``properties``; everything else udev knows is dropped.
    public static let keptPropertyPrefixes = [
        "ID_NBGW_", "ID_MM_", "ID_USB_", "ID_VENDOR", "ID_MODEL", "ID_SERIAL", "ID_PATH", "ID_BUS", "ID_REVISION",
    ]

    /// Whether the port sits on a USB device.
    public var isUSB: Bool { vendorID != nil && productID != nil }

    /// `2c7c:0700`, or nil for a port without a USB parent.
    public var usbID: String? {
        guard let vendorID, let productID else { return nil }
        return "\(vendorID):\(productID)"
    }

    /// `if 02` as udev and `lsusb` print interface numbers (two hex digits), or nil.
    public var interfaceLabel: String? {
        interfaceNumber.map { "if " + Self.hex2($0) }
    }

    /// Two lower-case hex digits, as sysfs prints `bInterfaceNumber`.
    static func hex2(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count < 2 ? "0" + digits : digits
    }
}
