/// One eDRX setting or report: `+CEDRXS: <AcT-type>,"<requested>"` or the URC
/// `+CEDRXP: <AcT-type>,"<requested>","<granted>","<PTW>"` (3GPP TS 27.007 §7.40, §7.41).
public struct EDRXSetting: Sendable, Hashable {
    public var technology: EDRXCycle.AccessTechnology
    public var requestedBits: String?
    /// The network's value (`+CEDRXP` only).
    public var grantedBits: String?
    /// The paging time window (`+CEDRXP` only).
    public var pagingWindowBits: String?

    public init(
        technology: EDRXCycle.AccessTechnology,
        requestedBits: String?,
        grantedBits: String? = nil,
        pagingWindowBits: String? = nil
    ) {
        self.technology = technology
        self.requestedBits = requestedBits
        self.grantedBits = grantedBits
        self.pagingWindowBits = pagingWindowBits
    }

    /// Parses a `+CEDRXP` URC; nil for other URCs or unknown technologies.
    public init?(urc: ATURC) {
        guard urc.name == "+CEDRXP" else { return nil }
        let parameters = ATParameterList(urc.parameters)
        guard let act = parameters.int(0).flatMap(EDRXCycle.AccessTechnology.init(rawValue:)) else { return nil }
        self.init(
            technology: act,
            requestedBits: parameters.string(1),
            grantedBits: parameters.string(2),
            pagingWindowBits: parameters.string(3)
        )
    }

    /// The granted cycle in seconds, else the requested one.
    public var cycleSeconds: Double? {
        (grantedBits ?? requestedBits).flatMap { EDRXCycle.seconds(fromBits: $0, technology: technology) }
    }

    /// The paging time window in seconds.
    public var pagingWindowSeconds: Double? {
        pagingWindowBits.flatMap { EDRXCycle.pagingWindowSeconds(fromBits: $0, technology: technology) }
    }
}
