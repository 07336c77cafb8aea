/// 3GPP TS 27.007 §7.40 eDRX setting `+CEDRXS`.
///
/// `AT+CEDRXS=<mode>,<AcT-type>,"<Requested_eDRX_value>"`; mode 2 also enables the `+CEDRXP` URC
/// that reports what the network granted.
public enum CEDRXS {
    /// Requests an eDRX cycle of at least `seconds` on `technology`, or disables eDRX.
    public struct Set: ATCommand {
        public var technology: EDRXCycle.AccessTechnology
        /// nil disables eDRX for this technology (mode 3: disable and reset to defaults).
        public var cycleBits: String?
        /// The cycle the bit string encodes.
        public var cycleSeconds: Double?
        /// Whether to enable the `+CEDRXP` URC.
        public var reportsGrantedValues: Bool

        public init(technology: EDRXCycle.AccessTechnology, cycleSeconds: Double?, reportsGrantedValues: Bool = true) {
            self.technology = technology
            self.reportsGrantedValues = reportsGrantedValues
            if let cycleSeconds {
                let encoded = EDRXCycle.bits(forSeconds: cycleSeconds, technology: technology)
                cycleBits = encoded.bits
                self.cycleSeconds = encoded.seconds
            }
        }

        public var command: String {
            guard let cycleBits else { return "AT+CEDRXS=3,\(technology.rawValue)" }
            return "AT+CEDRXS=\(reportsGrantedValues ? 2 : 1),\(technology.rawValue),\"\(cycleBits)\""
        }

        public var timeout: Duration? { ATCommandTimeout.configuration }
    }

    /// `AT+CEDRXS?` → one `+CEDRXS: <AcT-type>,"<value>"` line per technology.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CEDRXS?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> [EDRXSetting] {
            response.values(for: "+CEDRXS").compactMap { value in
                let parameters = ATParameterList(value)
                guard let act = parameters.int(0).flatMap(EDRXCycle.AccessTechnology.init(rawValue:)) else {
                    return nil
                }
                return EDRXSetting(technology: act, requestedBits: parameters.string(1))
            }
        }
    }
}
