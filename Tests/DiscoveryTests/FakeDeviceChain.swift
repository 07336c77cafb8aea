import Discovery

/// Device chains for ``UdevRulesEvaluator``: read from a umockdev description (the testbed's `describe`),
/// or built for any VID:PID and interface.
enum FakeDeviceChain {
    /// A tty with its parents and its udev properties, plus what udev's builtins would import for it.
    struct Subject {
        var chain: [UdevRulesEvaluator.Device]
        var properties: [String: String]
        var builtins: [String: [String: String]]
    }

    /// The tty of `interface` on a USB module `vendorID:productID` in root-hub port 1, like the testbed
    /// plugs them: tty → usb-serial port (unless CDC ACM) → usb_interface → usb_device → root hub.
    static func synthetic(
        vendorID: String,
        productID: String,
        interface: Int,
        driver: String = "option",
        acm: Bool = false,
        serial: String = "0123abcd",
        manufacturer: String? = nil,
        product: String? = nil
    ) -> Subject {
        let ttyName = acm ? "ttyACM0" : "ttyUSB0"
        let interfaceNumber = UdevPortHex.two(interface)
        var chain: [UdevRulesEvaluator.Device] = [
            .init(sysname: ttyName, subsystem: "tty", attributes: ["dev": acm ? "166:0" : "188:0"])
        ]
        if !acm {
            chain.append(
                .init(sysname: ttyName, subsystem: "usb-serial", driver: driver + "1", attributes: ["port_number": "0"])
            )
        }
        chain += [
            .init(
                sysname: "1-1:1.\(interface)",
                subsystem: "usb",
                devtype: "usb_interface",
                driver: driver,
                attributes: ["bInterfaceNumber": interfaceNumber, "bInterfaceClass": acm ? "02" : "ff"]
            ),
            .init(
                sysname: "1-1",
                subsystem: "usb",
                devtype: "usb_device",
                driver: "usb",
                attributes: ["idVendor": vendorID, "idProduct": productID, "serial": serial].merging(
                    [("manufacturer", manufacturer), ("product", product)].compactMap { name, value in
                        value.map { (name, $0) }
                    }
                ) { $1 }
            ),
            .init(
                sysname: "usb1",
                subsystem: "usb",
                devtype: "usb_device",
                driver: "usb",
                attributes: ["idVendor": "1d6b", "idProduct": "0002"]
            ),
            .init(sysname: "0000:00:14.0", subsystem: "pci", driver: "xhci_hcd"),
        ]
        return Subject(
            chain: chain,
            properties: ["SUBSYSTEM": "tty", "DEVNAME": "/dev/" + ttyName],
            builtins: [
                "path_id": ["ID_PATH": "pci-0000:00:14.0-usb-0:1:1.\(interface)"],
                "usb_id": [
                    "ID_BUS": "usb", "ID_VENDOR_ID": vendorID, "ID_MODEL_ID": productID, "ID_SERIAL_SHORT": serial,
                    "ID_USB_INTERFACE_NUM": interfaceNumber, "ID_USB_DRIVER": driver,
                ],
            ]
        )
    }

    /// The USB device alone, as its own `add` event.
    static func usbDevice(vendorID: String, productID: String) -> Subject {
        Subject(
            chain: [
                .init(
                    sysname: "1-1",
                    subsystem: "usb",
                    devtype: "usb_device",
                    driver: "usb",
                    attributes: ["idVendor": vendorID, "idProduct": productID]
                )
            ],
            properties: ["SUBSYSTEM": "usb", "DEVTYPE": "usb_device"],
            builtins: [:]
        )
    }

    /// Every device of a umockdev description, by sysfs path.
    struct Record {
        var path: String
        var device: UdevRulesEvaluator.Device
        var properties: [String: String]
    }

    static func records(umockdev text: String) -> [Record] {
        text.components(separatedBy: "\n\n").compactMap { paragraph -> Record? in
            var path: String?
            var properties: [String: String] = [:]
            var attributes: [String: String] = [:]
            var driverLink: String?
            for line in paragraph.split(separator: "\n") {
                let type = line.prefix(2)
                let body = String(line.dropFirst(3))
                let pair = body.split(separator: "=", maxSplits: 1).map(String.init)
                switch type {
                case "P:": path = body
                case "E:" where pair.count == 2: properties[pair[0]] = pair[1]
                case "A:" where pair.count == 2: attributes[pair[0]] = pair[1]
                case "L:" where pair.count == 2 && pair[0] == "driver": driverLink = pair[1]
                default: break
                }
            }
            guard let path else { return nil }
            let device = UdevRulesEvaluator.Device(
                sysname: String(path.split(separator: "/").last ?? ""),
                subsystem: properties["SUBSYSTEM"] ?? "",
                devtype: properties["DEVTYPE"],
                driver: properties["DRIVER"] ?? driverLink.map { String($0.split(separator: "/").last ?? "") },
                attributes: attributes
            )
            return Record(path: "/sys" + path, device: device, properties: properties)
        }
    }

    /// The tty at `syspath` from a umockdev description, with its parents, its properties and the
    /// builtins' results derived from the record (as udev's `path_id` and `usb_id` compute them).
    static func subject(umockdev text: String, syspath: String) -> Subject? {
        let records = records(umockdev: text)
        guard let tty = records.first(where: { $0.path == syspath }) else { return nil }
        let parents = records.filter { syspath.hasPrefix($0.path + "/") }.sorted { $0.path.count > $1.path.count }
        let chain = [tty.device] + parents.map(\.device)
        guard let interface = chain.first(where: { $0.devtype == "usb_interface" }),
            let usbDevice = chain.first(where: { $0.devtype == "usb_device" })
        else { return Subject(chain: chain, properties: tty.properties, builtins: [:]) }
        let port = usbDevice.sysname.split(separator: "-").last.map(String.init) ?? ""
        let configuration = interface.sysname.split(separator: ":").last.map(String.init) ?? ""
        return Subject(
            chain: chain,
            properties: tty.properties,
            builtins: [
                "path_id": ["ID_PATH": "pci-0000:00:14.0-usb-0:\(port):\(configuration)"],
                "usb_id": [
                    "ID_BUS": "usb",
                    "ID_VENDOR_ID": usbDevice.attributes["idVendor"] ?? "",
                    "ID_MODEL_ID": usbDevice.attributes["idProduct"] ?? "",
                    "ID_SERIAL_SHORT": usbDevice.attributes["serial"] ?? "",
                    "ID_USB_INTERFACE_NUM": interface.attributes["bInterfaceNumber"] ?? "",
                    "ID_USB_DRIVER": interface.driver ?? "",
                ],
            ]
        )
    }
}

/// Two lower-case hex digits, as sysfs prints `bInterfaceNumber`.
enum UdevPortHex {
    static func two(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count < 2 ? "0" + digits : digits
    }
}
