/// One row of the module table: a USB VID:PID and what each of its serial interfaces is.
///
/// The rows come from `docs/at-dialects.md` §1 and the interface maps that ModemManager's and the
/// Linux `option` driver's sources document. `udev-rules/90-nbgw.rules` and the module table of
/// `docs/discovery.md` are generated from ``catalogue`` by `nbgw-gen-udev` (`tools/gen-udev`), and
/// `tools/test.sh` fails when the committed files are not what it generates.
public struct KnownModule: Sendable, Hashable {
    /// Marketing name(s) sharing the IDs: "Quectel BG95 / BG77".
    public var name: String
    /// Four lower-case hex digits.
    public var vendorID: String
    /// Four lower-case hex digits each; several when one interface map covers several PIDs.
    public var productIDs: [String]
    /// The ATKit dialect the IDs suggest (`quectel-bg9x`), nil when the IDs are shared by families.
    public var dialectHint: String?
    /// Interface number → role, for the interfaces that carry a tty.
    public var interfaces: [Int: PortRole]
    /// The role of a tty on an interface the map does not list; nil skips such ttys.
    public var otherInterfaces: PortRole?
    /// Where the map comes from, or what is uncertain about it (for the rules' comments and
    /// `docs/discovery.md`).
    public var note: String?
    /// What the sources say about an interface beyond its role, by number, for the rules' comments and
    /// `docs/discovery.md`: `"nRF9160 UART0"` on a tty of the map, `"ECM/QMI, no tty"` on an interface
    /// that has no tty (a number ``interfaces`` does not list). Discovery itself never reads it.
    public var interfaceNotes: [Int: String]

    public init(
        name: String,
        vendorID: String,
        productIDs: [String],
        dialectHint: String?,
        interfaces: [Int: PortRole],
        otherInterfaces: PortRole? = nil,
        note: String? = nil,
        interfaceNotes: [Int: String] = [:]
    ) {
        self.name = name
        self.vendorID = vendorID.lowercased()
        self.productIDs = productIDs.map { $0.lowercased() }
        self.dialectHint = dialectHint
        self.interfaces = interfaces
        self.otherInterfaces = otherInterfaces
        self.note = note
        self.interfaceNotes = interfaceNotes
    }

    /// Whether the row covers `vendorID:productID` (lower-case hex).
    public func matches(vendorID: String, productID: String) -> Bool {
        self.vendorID == vendorID && productIDs.contains(productID)
    }

    /// The role of interface `number`: the map's entry, else ``otherInterfaces``.
    public func role(ofInterface number: Int) -> PortRole? {
        interfaces[number] ?? otherInterfaces
    }
}
