import Foundation

/// The umockdev description (`P:`/`E:`/`A:`/`L:`/`N:` paragraphs, parents first) of one fake module
/// plugged into root-hub port `usbPort`, with sysfs laid out as the kernel does:
///
/// ```
/// /devices/pci0000:00/0000:00:14.0/usb1/1-3                      usb_device  (idVendor, idProduct, serial)
///   1-3:1.2                                                      usb_interface (bInterfaceNumber=02, driver option)
///     ttyUSB6                                                    usb-serial port (driver option1)   [not for cdc_acm]
///       tty/ttyUSB6                                              tty, DEVNAME=/dev/ttyUSB6 (a pty)
/// ```
struct FakeModuleRecord {
    /// One tty of the module.
    struct Port {
        var interface: FakeModuleKind.Interface
        var devnode: String
        var syspath: String
    }

    static let hostController = "/devices/pci0000:00/0000:00:14.0/usb1"

    let kind: FakeModuleKind
    let usbPort: Int
    let serial: String
    let usbDeviceSyspath: String
    let ports: [Port]
    /// Whether to add the properties udevd's stock rules would (`60-serial.rules`: `usb_id`, `path_id`, by-id and
    /// by-path links). Our own rules' `ID_NBGW_*` are never faked.
    let stockProperties: Bool
    /// udev properties put on every tty, as a local rule would (`ID_NBGW_PROBE=1`), with or without the stock ones.
    let extraProperties: [String: String]

    /// `firstTTY`: the number of the module's first ttyUSB/ttyACM node.
    init(
        kind: FakeModuleKind,
        usbPort: Int,
        serial: String,
        firstTTY: Int,
        stockProperties: Bool,
        extraProperties: [String: String] = [:]
    ) {
        self.kind = kind
        self.usbPort = usbPort
        self.serial = serial
        self.stockProperties = stockProperties
        self.extraProperties = extraProperties
        let device = "\(Self.hostController)/1-\(usbPort)"
        usbDeviceSyspath = "/sys" + device
        ports = kind.interfaces.enumerated().map { offset, interface in
            let name = (kind.usesACM ? "ttyACM" : "ttyUSB") + String(firstTTY + offset)
            let interfaceDir = "\(device)/1-\(usbPort):1.\(interface.number)"
            let tty = kind.usesACM ? "\(interfaceDir)/tty/\(name)" : "\(interfaceDir)/\(name)/tty/\(name)"
            return Port(interface: interface, devnode: "/dev/" + name, syspath: "/sys" + tty)
        }
    }

    /// The xHCI controller and its root hub, which every module hangs under: added once per testbed. Without
    /// them udev's `path_id` finds no bus to name (`ID_PATH` stays unset).
    static let hostControllerText = """
        P: /devices/pci0000:00/0000:00:14.0
        E: DRIVER=xhci_hcd
        E: PCI_CLASS=C0330
        E: PCI_ID=8086:A36D
        E: PCI_SLOT_NAME=0000:00:14.0
        E: SUBSYSTEM=pci
        A: vendor=0x8086
        A: device=0xa36d
        A: class=0x0c0330
        L: driver=../../../bus/pci/drivers/xhci_hcd

        P: /devices/pci0000:00/0000:00:14.0/usb1
        N: bus/usb/001/001
        E: DEVNAME=/dev/bus/usb/001/001
        E: DEVTYPE=usb_device
        E: DRIVER=usb
        E: PRODUCT=1d6b/2/515
        E: BUSNUM=001
        E: DEVNUM=001
        E: MAJOR=189
        E: MINOR=0
        E: SUBSYSTEM=usb
        A: idVendor=1d6b
        A: idProduct=0002
        A: manufacturer=Linux 5.15.0 xhci-hcd
        A: product=xHCI Host Controller
        A: busnum=1
        A: devnum=1
        A: dev=189:0
        L: driver=../../../../bus/usb/drivers/usb

        """

    /// The description to pass to `umockdev_testbed_add_from_string`.
    var text: String {
        var paragraphs: [String] = []
        let device = String(usbDeviceSyspath.dropFirst(4))
        let busDevice = String(format: "%03d", usbPort + 1)
        paragraphs.append(
            """
            P: \(device)
            N: bus/usb/001/\(busDevice)
            E: DEVNAME=/dev/bus/usb/001/\(busDevice)
            E: DEVTYPE=usb_device
            E: DRIVER=usb
            E: PRODUCT=\(trimmed(kind.vendorID))/\(trimmed(kind.productID))/0
            E: BUSNUM=001
            E: DEVNUM=\(busDevice)
            E: MAJOR=189
            E: MINOR=\(usbPort)
            E: SUBSYSTEM=usb
            A: idVendor=\(kind.vendorID)
            A: idProduct=\(kind.productID)
            A: manufacturer=\(kind.manufacturer)
            A: product=\(kind.product)
            A: serial=\(serial)
            A: busnum=1
            A: devnum=\(usbPort + 1)
            A: bNumInterfaces=\(kind.interfaces.count)
            A: dev=189:\(usbPort)
            L: driver=../../../../../bus/usb/drivers/usb
            """
        )
        for port in ports {
            let number = hex2(port.interface.number)
            let interface = "\(device)/1-\(usbPort):1.\(port.interface.number)"
            let interfaceClass = kind.usesACM ? "02" : "ff"
            paragraphs.append(
                """
                P: \(interface)
                E: DEVTYPE=usb_interface
                E: DRIVER=\(kind.driver)
                E: INTERFACE=\(kind.usesACM ? "2/2/1" : "255/255/255")
                E: PRODUCT=\(trimmed(kind.vendorID))/\(trimmed(kind.productID))/0
                E: SUBSYSTEM=usb
                A: bInterfaceNumber=\(number)
                A: bInterfaceClass=\(interfaceClass)
                A: bInterfaceProtocol=\(kind.usesACM ? "01" : "ff")
                L: driver=../../../../../../bus/usb/drivers/\(kind.driver)
                """
            )
            let name = String(port.devnode.dropFirst(5))
            if let serialDriver = kind.serialDriver {
                paragraphs.append(
                    """
                    P: \(interface)/\(name)
                    E: DRIVER=\(serialDriver)
                    E: SUBSYSTEM=usb-serial
                    A: port_number=0
                    L: driver=../../../../../../../bus/usb-serial/drivers/\(serialDriver)
                    """
                )
            }
            let minor = Int(name.drop { !$0.isNumber }) ?? 0
            var tty = """
                P: \(port.syspath.dropFirst(4))
                N: \(name)
                E: DEVNAME=\(port.devnode)
                E: MAJOR=\(kind.usesACM ? 166 : 188)
                E: MINOR=\(minor)
                E: SUBSYSTEM=tty
                A: dev=\(kind.usesACM ? 166 : 188):\(minor)
                """
            if stockProperties {
                tty += "\n" + stockLines(port: port, interfaceNumber: number).joined(separator: "\n")
            }
            for (key, value) in extraProperties.sorted(by: { $0.key < $1.key }) {
                tty += "\nE: \(key)=\(value)"
            }
            paragraphs.append(tty)
        }
        return paragraphs.joined(separator: "\n\n") + "\n"
    }

    /// What systemd's `60-serial.rules` (with the `usb_id` and `path_id` builtins) adds to a USB tty.
    private func stockLines(port: Port, interfaceNumber: String) -> [String] {
        let vendor = sanitize(kind.manufacturer)
        let model = sanitize(kind.product)
        let idSerial = "\(vendor)_\(model)_\(serial)"
        let idPath = "pci-0000:00:14.0-usb-0:\(usbPort):1.\(port.interface.number)"
        let portSuffix = kind.usesACM ? "" : "-port0"
        return [
            "E: ID_BUS=usb",
            "E: ID_VENDOR=\(vendor)",
            "E: ID_VENDOR_ID=\(kind.vendorID)",
            "E: ID_MODEL=\(model)",
            "E: ID_MODEL_ID=\(kind.productID)",
            "E: ID_REVISION=0000",
            "E: ID_SERIAL=\(idSerial)",
            "E: ID_SERIAL_SHORT=\(serial)",
            "E: ID_USB_INTERFACE_NUM=\(interfaceNumber)",
            "E: ID_USB_DRIVER=\(kind.driver)",
            "E: ID_PATH=\(idPath)",
            "E: DEVLINKS=/dev/serial/by-id/usb-\(idSerial)-if\(interfaceNumber)\(portSuffix) "
                + "/dev/serial/by-path/\(idPath)\(portSuffix)",
        ]
    }

    /// `usb_id`'s replacement of characters that are not safe in names.
    private func sanitize(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || "#+-.:=@_".contains($0) ? $0 : "_" })
    }

    /// `PRODUCT=` prints IDs without leading zeros.
    private func trimmed(_ hex: String) -> String {
        String(Int(hex, radix: 16) ?? 0, radix: 16)
    }

    private func hex2(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count < 2 ? "0" + digits : digits
    }
}
