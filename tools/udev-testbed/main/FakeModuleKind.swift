/// A kind of fake USB module the testbed can plug in: its USB identity, drivers, and who plays each
/// serial interface. The identities and interface maps follow `docs/discovery.md`.
struct FakeModuleKind: Sendable {
    /// One serial interface and the simulator family that plays it (nil: nobody, a dead port).
    struct Interface: Sendable {
        var number: Int
        var role: String
        var family: String?
    }

    var id: String
    var vendorID: String
    var productID: String
    var manufacturer: String
    var product: String
    /// The USB interface driver (`option`, `cp210x`, `cdc_acm`).
    var driver: String
    /// The usb-serial port driver (`option1`, `cp210x`), nil for CDC ACM (tty directly under the interface).
    var serialDriver: String?
    var interfaces: [Interface]
    /// A fixed USB serial number (a board whose maker programmed one); nil derives it from the module's name.
    var serial: String? = nil

    var usesACM: Bool { serialDriver == nil }

    static let all: [FakeModuleKind] = [
        FakeModuleKind(
            id: "bg95",
            vendorID: "2c7c",
            productID: "0700",
            manufacturer: "Quectel, Incorporated",
            product: "Quectel LPWA Module",
            driver: "option",
            serialDriver: "option1",
            interfaces: [
                .init(number: 0, role: "diag", family: "diag"),
                .init(number: 1, role: "nmea", family: "nmea"),
                .init(number: 2, role: "at", family: "bg95"),
                .init(number: 4, role: "modem", family: "bg95"),
            ]
        ),
        FakeModuleKind(
            id: "bg96",
            vendorID: "2c7c",
            productID: "0296",
            manufacturer: "Quectel",
            product: "BG96",
            driver: "option",
            serialDriver: "option1",
            interfaces: [
                .init(number: 0, role: "diag", family: "diag"),
                .init(number: 1, role: "nmea", family: "nmea"),
                .init(number: 2, role: "at", family: "bg95"),
                .init(number: 3, role: "modem", family: "bg95"),
            ]
        ),
        FakeModuleKind(
            id: "sim7080",
            vendorID: "1e0e",
            productID: "9205",
            manufacturer: "SimTech, Incorporated",
            product: "SimTech SIM7080",
            driver: "option",
            serialDriver: "option1",
            interfaces: [
                .init(number: 0, role: "diag", family: "diag"),
                .init(number: 1, role: "nmea", family: "nmea"),
                .init(number: 2, role: "at", family: "sim7080"),
                .init(number: 3, role: "modem", family: "sim7080"),
            ]
        ),
        FakeModuleKind(
            id: "thingy91",
            vendorID: "1915",
            productID: "9100",
            manufacturer: "Nordic Semiconductor",
            product: "Thingy:91 UART",
            driver: "cdc_acm",
            serialDriver: nil,
            interfaces: [
                .init(number: 0, role: "at", family: "nrf9160"),
                .init(number: 3, role: "trace", family: "diag"),
            ]
        ),
        FakeModuleKind(
            id: "cp210x",
            vendorID: "10c4",
            productID: "ea60",
            manufacturer: "Silicon Labs",
            product: "CP2102 USB to UART Bridge Controller",
            driver: "cp210x",
            serialDriver: "cp210x",
            interfaces: [.init(number: 0, role: "bridge", family: "generic")]
        ),
        FakeModuleKind(
            id: "ch340",
            vendorID: "1a86",
            productID: "7523",
            manufacturer: "QinHeng Electronics",
            product: "USB Serial",
            driver: "ch341",
            serialDriver: "ch341-uart",
            interfaces: [.init(number: 0, role: "bridge", family: "generic")]
        ),
        // Not a modem: a Sonoff ZBDongle-P Zigbee coordinator, a CP2102N with ITead's strings. Played by a
        // silent port that counts what it receives: discovery must leave it alone unless told otherwise.
        FakeModuleKind(
            id: "zigbee",
            vendorID: "10c4",
            productID: "ea60",
            manufacturer: "ITead",
            product: "Sonoff Zigbee 3.0 USB Dongle Plus",
            driver: "cp210x",
            serialDriver: "cp210x",
            interfaces: [.init(number: 0, role: "zigbee", family: "diag")]
        ),
        // A Quectel BC66 on a board behind a CP2102 whose maker programmed the serial number: the board
        // udev-rules/89-nbgw-local.rules.example opts in by that serial.
        FakeModuleKind(
            id: "bc66board",
            vendorID: "10c4",
            productID: "ea60",
            manufacturer: "Silicon Labs",
            product: "CP2102 USB to UART Bridge Controller",
            driver: "cp210x",
            serialDriver: "cp210x",
            interfaces: [.init(number: 0, role: "bridge", family: "bc66")],
            serial: "BC66-0001"
        ),
        // Not a modem: an Arduino Uno's CDC ACM port, which discovery must leave alone.
        FakeModuleKind(
            id: "arduino",
            vendorID: "2341",
            productID: "0043",
            manufacturer: "Arduino (www.arduino.cc)",
            product: "Arduino Uno",
            driver: "cdc_acm",
            serialDriver: nil,
            interfaces: [.init(number: 0, role: "other", family: nil)]
        ),
    ]

    static func named(_ id: String) -> FakeModuleKind? {
        all.first { $0.id == id.lowercased() }
    }
}
