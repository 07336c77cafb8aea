/// One tty the daemon sees and what it decided about it: the record `nbgw discovery list` shows
/// and the daemon's ``DiscoveryLedger`` keeps, in JSON with stable camelCase keys
/// (docs/discovery.md, "What the daemon decided").
///
/// ```json
/// {"devnode":"/dev/ttyUSB0","syspath":"/sys/devices/…/ttyUSB0/tty/ttyUSB0","subsystem":"tty",
///  "vendorID":"10c4","productID":"ea60","manufacturer":"ITead","product":"Sonoff Zigbee 3.0 USB Dongle Plus",
///  "serial":"9a7c2e1f","interfaceNumber":0,"driver":"cp210x","links":["/dev/serial/by-id/…"],
///  "decision":"skip","reason":"generic USB-UART bridge CP210x 10c4:ea60 (not probed by default: …)",
///  "source":{"kind":"builtin","rule":"[discovery] generic_bridges = \"tagged\" (default)"}}
/// ```
///
/// Fields udev does not know are left out of the JSON (a static pty has only `devnode`).
public struct DiscoveryEntry: Sendable, Hashable, Codable {
    /// What became of the port.
    public enum Decision: String, Sendable, Hashable, Codable, CaseIterable {
        /// Probed with AT (a supervisor runs on it).
        case probe
        /// Left alone: not a modem's AT port as far as the tables, tags and config know.
        case skip
        /// Never opened: `ID_NBGW_IGNORE=1` or `[discovery] ignore`.
        case ignored
        /// Supervised from its `[[ports]]` entry, whatever udev says.
        case `static`
    }

    /// The node, `/dev/ttyUSB0`; for a `[[ports]]` entry udev does not know, the configured path.
    public var devnode: String
    public var syspath: String?
    public var subsystem: String?
    /// Four lower-case hex digits.
    public var vendorID: String?
    /// Four lower-case hex digits.
    public var productID: String?
    public var manufacturer: String?
    public var product: String?
    public var serial: String?
    /// `bInterfaceNumber`.
    public var interfaceNumber: Int?
    public var driver: String?
    /// The node's symlinks, sorted.
    public var links: [String]
    public var decision: Decision
    /// The ATKit dialect hint of a probe.
    public var dialectHint: String?
    public var reason: String
    /// The rule or config line behind the decision.
    public var source: DecisionSource

    public init(
        devnode: String,
        syspath: String? = nil,
        subsystem: String? = nil,
        vendorID: String? = nil,
        productID: String? = nil,
        manufacturer: String? = nil,
        product: String? = nil,
        serial: String? = nil,
        interfaceNumber: Int? = nil,
        driver: String? = nil,
        links: [String] = [],
        decision: Decision,
        dialectHint: String? = nil,
        reason: String,
        source: DecisionSource
    ) {
        self.devnode = devnode
        self.syspath = syspath
        self.subsystem = subsystem
        self.vendorID = vendorID
        self.productID = productID
        self.manufacturer = manufacturer
        self.product = product
        self.serial = serial
        self.interfaceNumber = interfaceNumber
        self.driver = driver
        self.links = links.sorted()
        self.decision = decision
        self.dialectHint = dialectHint
        self.reason = reason
        self.source = source
    }

    /// A udev port with the policy's decision about it.
    public init(port: UdevPort, decision: CandidateDecision) {
        self.init(
            port: port,
            decision: Decision(decision.action),
            dialectHint: decision.dialectHint,
            reason: decision.reason,
            source: decision.source
        )
    }

    /// A udev port with any decision (``Decision/static`` for a port the config lists).
    public init(port: UdevPort, decision: Decision, dialectHint: String? = nil, reason: String, source: DecisionSource)
    {
        self.init(
            devnode: port.devnode,
            syspath: port.syspath,
            subsystem: port.subsystem,
            vendorID: port.vendorID,
            productID: port.productID,
            manufacturer: port.manufacturer,
            product: port.product,
            serial: port.serial,
            interfaceNumber: port.interfaceNumber,
            driver: port.driver,
            links: port.links,
            decision: decision,
            dialectHint: dialectHint,
            reason: reason,
            source: source
        )
    }

    /// `10c4:ea60`, or nil without a USB parent.
    public var usbID: String? {
        guard let vendorID, let productID else { return nil }
        return "\(vendorID):\(productID)"
    }

    /// Whether the port sits on a USB device.
    public var isUSB: Bool { usbID != nil }
}

extension DiscoveryEntry.Decision {
    /// The entry's decision for a policy action.
    public init(_ action: CandidateDecision.Action) {
        switch action {
        case .probe: self = .probe
        case .skip: self = .skip
        case .ignored: self = .ignored
        }
    }
}
