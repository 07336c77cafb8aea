import CUDev
import Foundation

extension UdevPort {
    /// Reads a libudev `tty` device and its USB parents. Nil when the device has no node (`/dev/...`).
    init?(device: OpaquePointer) {
        guard let devnode = Self.string(udev_device_get_devnode(device)),
            let syspath = Self.string(udev_device_get_syspath(device))
        else { return nil }
        let subsystem = Self.string(udev_device_get_subsystem(device)) ?? "tty"
        let properties = Self.list(udev_device_get_properties_list_entry(device))
        let interface = udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_interface")
        let usbDevice = udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_device")

        var kept: [String: String] = [:]
        for (name, value) in properties where Self.keptPropertyPrefixes.contains(where: { name.hasPrefix($0) }) {
            kept[name] = value ?? ""
        }
        let property = { (name: String) -> String? in
            guard let value = properties.first(where: { $0.name == name })?.value, !value.isEmpty else { return nil }
            return value
        }
        // udev's USB properties stand in for sysfs only on USB ports (PCI or platform UARTs may carry other IDs).
        let usbProperty = { (name: String) -> String? in
            usbDevice != nil || property("ID_BUS") == "usb" ? property(name) : nil
        }

        var links = Self.list(udev_device_get_devlinks_list_entry(device)).map(\.name)
        if links.isEmpty, let devlinks = property("DEVLINKS") {
            links = devlinks.split(separator: " ").map(String.init)
        }

        var interfaceNumber: Int?
        if let interface, let text = Self.attribute(interface, "bInterfaceNumber") {
            interfaceNumber = Int(text, radix: 16)
        } else if let text = usbProperty("ID_USB_INTERFACE_NUM") {
            interfaceNumber = Int(text, radix: 16)
        }

        self.init(
            devnode: devnode,
            syspath: syspath,
            subsystem: subsystem,
            driver: interface.flatMap { Self.string(udev_device_get_driver($0)) }
                ?? usbProperty("ID_USB_DRIVER") ?? Self.nearestDriver(above: device),
            vendorID: (usbDevice.flatMap { Self.attribute($0, "idVendor") } ?? usbProperty("ID_VENDOR_ID")
                ?? usbProperty("ID_USB_VENDOR_ID"))?.lowercased(),
            productID: (usbDevice.flatMap { Self.attribute($0, "idProduct") } ?? usbProperty("ID_MODEL_ID")
                ?? usbProperty("ID_USB_MODEL_ID"))?.lowercased(),
            interfaceNumber: interfaceNumber,
            serial: usbProperty("ID_SERIAL_SHORT") ?? usbProperty("ID_USB_SERIAL_SHORT")
                ?? usbDevice.flatMap { Self.attribute($0, "serial") },
            manufacturer: usbDevice.flatMap { Self.attribute($0, "manufacturer") }
                ?? usbProperty("ID_VENDOR_ENC").map(Self.decodingUdevEscapes)
                ?? usbProperty("ID_USB_VENDOR_ENC").map(Self.decodingUdevEscapes),
            product: usbDevice.flatMap { Self.attribute($0, "product") }
                ?? usbProperty("ID_MODEL_ENC").map(Self.decodingUdevEscapes)
                ?? usbProperty("ID_USB_MODEL_ENC").map(Self.decodingUdevEscapes),
            usbDeviceSyspath: usbDevice.flatMap { Self.string(udev_device_get_syspath($0)) },
            links: links,
            properties: kept
        )
    }

    /// udev's `*_ENC` values: the string with unsafe bytes written `\xNN` (`ITead\x20Zigbee`), trimmed.
    static func decodingUdevEscapes(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
                let value = UInt8(String(decoding: utf8[(index + 2)...(index + 3)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// The driver of the device or its closest parent that has one (`serial8250` for `ttyS0`).
    private static func nearestDriver(above device: OpaquePointer) -> String? {
        var current: OpaquePointer? = device
        while let node = current {
            if let driver = string(udev_device_get_driver(node)) { return driver }
            current = udev_device_get_parent(node)
        }
        return nil
    }

    /// A sysfs attribute, trimmed; nil when absent or empty.
    private static func attribute(_ device: OpaquePointer, _ name: String) -> String? {
        guard let text = string(udev_device_get_sysattr_value(device, name)) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        let value = String(cString: pointer)
        return value.isEmpty ? nil : value
    }

    /// A libudev list as (name, value) pairs.
    static func list(_ first: OpaquePointer?) -> [(name: String, value: String?)] {
        var entries: [(name: String, value: String?)] = []
        var entry = first
        while let current = entry {
            if let name = udev_list_entry_get_name(current) {
                entries.append((String(cString: name), udev_list_entry_get_value(current).map { String(cString: $0) }))
            }
            entry = udev_list_entry_get_next(current)
        }
        return entries
    }
}
