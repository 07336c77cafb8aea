/// The operator's word on which ports discovery takes: `[discovery] generic_bridges`, `probe` and
/// `ignore` (docs/operations.md), with where each was written. The udev side of the same choice is
/// the `ID_NBGW_PROBE` and `ID_NBGW_IGNORE` properties (``CandidatePolicy/probeProperty``,
/// ``CandidatePolicy/ignoreProperty``).
public struct PortSelection: Sendable, Hashable {
    /// What to do with generic USB-UART bridges nobody opted in.
    public var genericBridges: GenericBridgeMode
    /// Where ``genericBridges`` was set; nil: the built-in default.
    public var genericBridgesLocation: ConfigLocation?
    /// Ports to probe although the tables would not (bridges, unknown USB serial devices, on-board
    /// UARTs found by udev). A known module's map still decides its own interfaces.
    public var probe: [ConfiguredMatcher]
    /// Ports never to open, whatever else says.
    public var ignore: [ConfiguredMatcher]

    public init(
        genericBridges: GenericBridgeMode = .tagged,
        genericBridgesLocation: ConfigLocation? = nil,
        probe: [ConfiguredMatcher] = [],
        ignore: [ConfiguredMatcher] = []
    ) {
        self.genericBridges = genericBridges
        self.genericBridgesLocation = genericBridgesLocation
        self.probe = probe
        self.ignore = ignore
    }

    /// The `generic_bridges` setting as a rule: `[discovery] generic_bridges = "tagged"`.
    public var genericBridgesRule: String {
        "[discovery] generic_bridges = \"\(genericBridges.rawValue)\""
    }

    /// Where the `generic_bridges` setting comes from, as a decision source.
    public var genericBridgesSource: DecisionSource {
        if let genericBridgesLocation {
            return .config(genericBridgesRule, at: genericBridgesLocation)
        }
        return .builtin(genericBridgesRule + " (default)")
    }

    /// Entries of ``probe`` and ``ignore`` that match none of `ports`, each with its list's name
    /// (`probe` or `ignore`): a typo, or a device not plugged in now.
    public func unmatched(by ports: [UdevPort]) -> [(list: String, entry: ConfiguredMatcher)] {
        let lists: [(String, [ConfiguredMatcher])] = [("probe", probe), ("ignore", ignore)]
        return lists.flatMap { name, entries in
            entries.filter { entry in !ports.contains { entry.matcher.matches($0) } }.map { (name, $0) }
        }
    }
}
