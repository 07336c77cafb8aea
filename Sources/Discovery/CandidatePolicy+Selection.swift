extension CandidatePolicy {
    /// Step 1: `ID_NBGW_IGNORE=1`, then `[discovery] ignore`; nil when neither names the port.
    func ignoreDecision(_ port: UdevPort) -> CandidateDecision? {
        if port.properties[Self.ignoreProperty] == "1" {
            let source = DecisionSource.udev(Self.ignoreProperty)
            return .ignored(reason: source.description, source: source)
        }
        if let entry = selection.ignore.first(where: { $0.matcher.matches(port) }) {
            let source = DecisionSource.config("[discovery] ignore entry \"\(entry.text)\"", at: entry.location)
            return .ignored(reason: source.description, source: source)
        }
        return nil
    }

    /// Step 5: `ID_NBGW_PROBE=1`, then `[discovery] probe`, then the generic bridges with
    /// `generic_bridges`; nil when the port is none of these.
    func optInDecision(_ port: UdevPort, place: String) -> CandidateDecision? {
        let bridge = bridge(for: port)
        let what = bridge.map { "\($0.name) USB-UART bridge (\(place))" } ?? place
        let hint = port.properties[Self.dialectProperty]
        if port.properties[Self.probeProperty] == "1" {
            let source = DecisionSource.udev(Self.probeProperty)
            return .probe(dialectHint: hint, reason: "\(source): \(what)", source: source)
        }
        if let entry = selection.probe.first(where: { $0.matcher.matches(port) }) {
            let source = DecisionSource.config("[discovery] probe entry \"\(entry.text)\"", at: entry.location)
            return .probe(dialectHint: hint, reason: "\(source): \(what)", source: source)
        }
        guard let bridge else { return nil }
        let source = selection.genericBridgesSource
        switch selection.genericBridges {
        case .probe:
            return .probe(
                dialectHint: hint,
                reason: "\(source): \(what), the AT probe tells the module",
                source: source
            )
        case .tagged:
            let setting =
                selection.genericBridgesLocation == nil
                ? "not probed by default" : "not probed: \(source)"
            return .skip(
                reason: "generic USB-UART bridge \(bridge.name) \(port.usbID ?? port.devnode) (\(setting): tag it "
                    + "\(Self.probeProperty)=1 or list it in [discovery] probe)",
                source: source
            )
        }
    }
}
