/// Decides which serial ports the gateway probes with AT, from tables, udev properties and the
/// operator's `[discovery]` settings rather than code paths. A pure function of the port's facts and
/// the policy's value: no file, no udev, no clock (docs/discovery.md, "The candidate policy").
///
/// The first matching step wins:
///
/// 1. **Ignore**: `ID_NBGW_IGNORE=1` on the port (``ignoreProperty``), then the first
///    `[discovery] ignore` entry that matches (``PortSelection/ignore``) → ignored. Nothing else is
///    asked: an ignored port is never opened.
/// 2. Our udev rules' tags: `ID_NBGW_AT_PORT=1` → probe; `ID_NBGW_PORT_TYPE=diag|nmea|gnss|trace|audio|modem`
///    → skip (`udev-rules/90-nbgw.rules`).
/// 3. The module table (``modules``): VID:PID + interface number → the interface's ``PortRole``.
/// 4. ModemManager's port hints, if its rules are installed (``modemManagerTags``):
///    `ID_MM_PORT_TYPE_AT_PRIMARY=1` → probe; QCDM, GPS, audio, secondary, PPP, ignore → skip.
/// 5. **Opt-in and generic bridges**: `ID_NBGW_PROBE=1` on the port (``probeProperty``), then the first
///    `[discovery] probe` entry that matches (``PortSelection/probe``) → probe, whatever the port
///    (bridge, unknown USB serial device, on-board UART). Otherwise a generic USB-UART bridge
///    (``bridges``) → probe only with `[discovery] generic_bridges = "probe"`; by default (`"tagged"`)
///    → skip, saying how to opt it in.
/// 6. A tty on a cellular-modem serial driver (``cellularDrivers``: `option`, `qcserial`) whose module
///    is not in the table → probe.
/// 7. Anything else → skip: other USB serial devices (an Arduino, a GPS puck), and ports without a
///    USB parent (`/dev/ttyS*`, `/dev/ttyAMA*`, virtual consoles), which the daemon probes only when
///    its config lists them.
///
/// Every decision carries its reason and its ``DecisionSource`` (the udev property, the config line,
/// or the table).
///
/// ```swift
/// let decision = policy.decide(port)
/// switch decision.action {
/// case .probe: logger.info("probing", metadata: ["port": "\(port.devnode)", "why": "\(decision.reason)"])
/// case .skip, .ignored: logger.debug("not probing", metadata: ["port": "\(port.devnode)", "why": "\(decision.reason)"])
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
    /// The operator's `[discovery] generic_bridges`, `probe` and `ignore`.
    public var selection: PortSelection

    public init(
        modules: [KnownModule],
        bridges: [SerialBridge],
        cellularDrivers: [String],
        modemManagerTags: [(property: String, probe: Bool)],
        selection: PortSelection = PortSelection()
    ) {
        self.modules = modules
        self.bridges = bridges
        self.cellularDrivers = cellularDrivers
        self.modemManagerTags = modemManagerTags
        self.selection = selection
    }

    /// The tables of `docs/discovery.md` (``KnownModule/catalogue``, ``SerialBridge/catalogue``) with
    /// the default selection: bridges probed only when tagged, nothing listed.
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

    /// The standard tables with the operator's `selection`.
    public static func standard(selection: PortSelection) -> CandidatePolicy {
        var policy = CandidatePolicy.standard
        policy.selection = selection
        return policy
    }

    /// The property our rules set on a port that should be probed.
    public static let atPortProperty = "ID_NBGW_AT_PORT"
    /// The property our rules set to a ``PortRole`` raw value on every interface of a known module.
    public static let portTypeProperty = "ID_NBGW_PORT_TYPE"
    /// An optional dialect hint our rules may set (an ATKit dialect identifier).
    public static let dialectProperty = "ID_NBGW_DIALECT"
    /// The property a local rule sets to opt a port in (a bridge with a modem behind it).
    public static let probeProperty = "ID_NBGW_PROBE"
    /// The property a local rule sets to keep nbgwd off a port whatever else says.
    public static let ignoreProperty = "ID_NBGW_IGNORE"

    /// The module row for `port`'s VID:PID, if any.
    public func module(for port: UdevPort) -> KnownModule? {
        guard let vendorID = port.vendorID, let productID = port.productID else { return nil }
        return modules.first { $0.matches(vendorID: vendorID, productID: productID) }
    }

    /// The bridge `port` sits on, if any.
    public func bridge(for port: UdevPort) -> SerialBridge? {
        bridges.first { $0.matches(port) }
    }

    /// Whether to probe `port`, and why (see the type's description for the steps).
    public func decide(_ port: UdevPort) -> CandidateDecision {
        guard port.subsystem == "tty" else {
            return .skip(reason: "subsystem \(port.subsystem) is not tty", source: .builtin("tty subsystem only"))
        }
        let module = module(for: port)
        let place = describe(port, module: module)

        // 1. The operator's veto.
        if let ignored = ignoreDecision(port) { return ignored }

        // 2. Our rules' tags.
        if port.properties[Self.atPortProperty] == "1" {
            let hint = port.properties[Self.dialectProperty] ?? module?.dialectHint
            return .probe(
                dialectHint: hint,
                reason: "tagged \(Self.atPortProperty)=1 (\(place))",
                source: .udev(Self.atPortProperty)
            )
        }
        if let value = port.properties[Self.portTypeProperty], let role = PortRole(udevValue: value), !role.isProbed {
            return .skip(
                reason: "tagged \(Self.portTypeProperty)=\(value) (\(place))",
                source: DecisionSource(kind: .udev, rule: "\(Self.portTypeProperty)=\(value)")
            )
        }

        // 3. The module table.
        if let module {
            let source = DecisionSource.builtin("module table: \(module.name)")
            guard let number = port.interfaceNumber else {
                return .skip(
                    reason: "\(module.name) tty without a USB interface number: cannot place it in the map",
                    source: source
                )
            }
            guard let role = module.role(ofInterface: number) else {
                return .skip(
                    reason: "\(module.name) interface \(UdevPort.hex2(number)) is not a serial port in its map",
                    source: source
                )
            }
            let reason = "\(module.name) \(role.label) (if \(UdevPort.hex2(number)))"
            return role.isProbed
                ? .probe(dialectHint: module.dialectHint, reason: reason, source: source)
                : .skip(reason: reason, source: source)
        }

        // 4. ModemManager's hints.
        for tag in modemManagerTags where port.properties[tag.property] == "1" {
            let reason = "tagged \(tag.property)=1 by ModemManager's rules (\(place))"
            return tag.probe
                ? .probe(dialectHint: nil, reason: reason, source: .udev(tag.property))
                : .skip(reason: reason, source: .udev(tag.property))
        }

        // 5. Opt-ins, then generic bridges.
        if let optedIn = optInDecision(port, place: place) { return optedIn }

        // 6. Cellular serial drivers.
        if let driver = port.driver, cellularDrivers.contains(driver) {
            return .probe(
                dialectHint: nil,
                reason: "cellular module on the \(driver) driver, not in the table (\(place))",
                source: .builtin("cellular serial driver \(driver)")
            )
        }

        // 7. Everything else.
        let source = DecisionSource.builtin("not a known module, bridge or cellular driver")
        if port.isUSB {
            return .skip(
                reason: "USB serial device \(place) is neither a known module nor a bridge; tag it "
                    + "\(Self.probeProperty)=1 in a udev rule or list it in [discovery] probe to probe it",
                source: source
            )
        }
        return .skip(
            reason: "not USB (\(place)); list it in [discovery] probe or under [[ports]] in the config to probe it",
            source: source
        )
    }

    /// "2c7c:0700 if 02 driver option" for reasons.
    func describe(_ port: UdevPort, module: KnownModule?) -> String {
        var parts: [String] = []
        if let module { parts.append(module.name) }
        if let usbID = port.usbID { parts.append(usbID) }
        if let label = port.interfaceLabel { parts.append(label) }
        if let driver = port.driver { parts.append("driver \(driver)") }
        return parts.isEmpty ? port.devnode : parts.joined(separator: " ")
    }
}
