/// Decides which serial ports the gateway probes with AT, from tables rather than code paths.
///
/// The first matching step wins:
///
/// 1. Our udev rules' tags: `ID_NBGW_AT_PORT=1` → probe; `ID_NBGW_PORT_TYPE=diag|nmea|gnss|trace|audio|modem`
///    → skip (`udev-rules/90-nbgw.rules`).
/// 2. The module table (``modules``): VID:PID + interface number → the interface's ``PortRole``.
/// 3. ModemManager's port hints, if its rules are installed (``modemManagerTags``):
///    `ID_MM_PORT_TYPE_AT_PRIMARY=1` → probe; QCDM, GPS, audio, secondary, PPP, ignore → skip.
/// 4. A generic USB-UART bridge (``bridges``) → probe.
/// 5. A tty on a cellular-modem serial driver (``cellularDrivers``: `option`, `qcserial`) whose module
///    is not in the table → probe.
/// 6. Anything else → skip: other USB serial devices (an Arduino, a GPS puck), and ports without a
///    USB parent (`/dev/ttyS*`, `/dev/ttyAMA*`, virtual consoles), which the daemon probes only when
///    its config lists them.
///
/// ```swift
/// switch CandidatePolicy.standard.decide(port) {
/// case .probe(let hint, let reason): logger.info("probing", metadata: ["port": "\(port.devnode)", "why": "\(reason)"])
/// case .skip(let reason): logger.debug("not probing", metadata: ["port": "\(port.devnode)", "why": "\(reason)"])
/// }
/// ```
public struct CandidatePolicy: Sendable {
    /// Known modules' interface maps.
    public var modules: [KnownModule]
    /// Generic USB-UART bridges.
    public var bridges: [SerialBridge]
    /// Drivers that bind only to cellular modules' serial interfaces.
    public var cellularDrivers: [String]
    /// ModemManager port hints (the value must be `1`) and whether each means "probe", in the order checked.
    public var modemManagerTags: [(property: String, probe: Bool)]

    public init(
        modules: [KnownModule],
        bridges: [SerialBridge],
        cellularDrivers: [String],
        modemManagerTags: [(property: String, probe: Bool)]
    ) {
        self.modules = modules
        self.bridges = bridges
        self.cellularDrivers = cellularDrivers
        self.modemManagerTags = modemManagerTags
    }

    /// The tables of `docs/discovery.md`: ``KnownModule/catalogue``, ``SerialBridge/catalogue``.
    public static let standard = CandidatePolicy(
        modules: KnownModule.catalogue,
        bridges: SerialBridge.catalogue,
        cellularDrivers: ["option", "qcserial"],
        modemManagerTags: [
            ("ID_MM_PORT_IGNORE", false),
            ("ID_MM_PORT_TYPE_QCDM", false),
            ("ID_MM_PORT_TYPE_GPS", false),
            ("ID_MM_PORT_TYPE_AUDIO", false),
            ("ID_MM_PORT_TYPE_AT_PPP", false),
            ("ID_MM_PORT_TYPE_AT_SECONDARY", false),
            ("ID_MM_PORT_TYPE_AT_PRIMARY", true),
        ]
    )

    /// The property our rules set on a port that should be probed.
    public static let atPortProperty = "ID_NBGW_AT_PORT"
    /// The property our rules set to a ``PortRole`` raw value on every interface of a known module.
    public static let portTypeProperty = "ID_NBGW_PORT_TYPE"
    /// An optional dialect hint our rules may set (an ATKit dialect identifier).
    public static let dialectProperty = "ID_NBGW_DIALECT"

    /// The module row for `port`'s VID:PID, if any.
    public func module(for port: UdevPort) -> KnownModule? {
        guard let vendorID = port.vendorID, let productID = port.productID else { return nil }
        return modules.first { $0.matches(vendorID: vendorID, productID: productID) }
    }

    /// The bridge `port` sits on, if any.
    public func bridge(for port: UdevPort) -> SerialBridge? {
        bridges.first { $0.matches(port) }
    }

    /// Whether to probe `port`, and why.
    public func decide(_ port: UdevPort) -> CandidateDecision {
        guard port.subsystem == "tty" else {
            return .skip(reason: "subsystem \(port.subsystem) is not tty")
        }
        let module = module(for: port)
        let place = describe(port, module: module)

        // 1. Our rules' tags.
        if port.properties[Self.atPortProperty] == "1" {
            let hint = port.properties[Self.dialectProperty] ?? module?.dialectHint
            return .probe(dialectHint: hint, reason: "tagged \(Self.atPortProperty)=1 (\(place))")
        }
        if let value = port.properties[Self.portTypeProperty], let role = PortRole(udevValue: value), !role.isProbed {
            return .skip(reason: "tagged \(Self.portTypeProperty)=\(value) (\(place))")
        }

        // 2. The module table.
        if let module {
            guard let number = port.interfaceNumber else {
                return .skip(reason: "\(module.name) tty without a USB interface number: cannot place it in the map")
            }
            guard let role = module.role(ofInterface: number) else {
                return .skip(
                    reason: "\(module.name) interface \(UdevPort.hex2(number)) is not a serial port in its map"
                )
            }
            let reason = "\(module.name) \(role.label) (if \(UdevPort.hex2(number)))"
            return role.isProbed ? .probe(dialectHint: module.dialectHint, reason: reason) : .skip(reason: reason)
        }

        // 3. ModemManager's hints.
        for tag in modemManagerTags where port.properties[tag.property] == "1" {
            let reason = "tagged \(tag.property)=1 by ModemManager's rules (\(place))"
            return tag.probe ? .probe(dialectHint: nil, reason: reason) : .skip(reason: reason)
        }

        // 4. Generic bridges.
        if let bridge = bridge(for: port) {
            return .probe(
                dialectHint: nil,
                reason: "\(bridge.name) USB-UART bridge (\(place)): the AT probe tells the module"
            )
        }

        // 5. Cellular serial drivers.
        if let driver = port.driver, cellularDrivers.contains(driver) {
            return .probe(
                dialectHint: nil,
                reason: "cellular module on the \(driver) driver, not in the table (\(place))"
            )
        }

        // 6. Everything else.
        if port.isUSB {
            return .skip(
                reason: "USB serial device \(place) is neither a known module nor a bridge; "
                    + "tag it \(Self.atPortProperty)=1 in a udev rule or list it in the config to probe it"
            )
        }
        return .skip(reason: "not USB (\(place)); list it under [[ports]] in the config to probe it")
    }

    /// "2c7c:0700 if 02, driver option" for reasons.
    private func describe(_ port: UdevPort, module: KnownModule?) -> String {
        var parts: [String] = []
        if let module { parts.append(module.name) }
        if let usbID = port.usbID { parts.append(usbID) }
        if let label = port.interfaceLabel { parts.append(label) }
        if let driver = port.driver { parts.append("driver \(driver)") }
        return parts.isEmpty ? port.devnode : parts.joined(separator: " ")
    }
}
