/// 3GPP TS 27.007 §10.1.20 GPRS network registration status `+CGREG`.
///
/// Read: `+CGREG: <n>,<stat>[,<lac>,<ci>[,<AcT>,<rac>[,<cause_type>,<reject_cause>]]]`; only for
/// modules that also do 2G (SIM7000G, SARA-R412M).
public enum CGREG {
    /// `AT+CGREG=<n>` (0…4 per 27.007).
    public struct Set: ATCommand {
        public var level: Int

        public init(_ level: Int) {
            self.level = level
        }

        public var command: String { "AT+CGREG=\(level)" }
    }

    /// `AT+CGREG?`.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CGREG?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> RegistrationStatus {
            try RegistrationReadParser.parse(response, domain: .gprs)
        }
    }
}
