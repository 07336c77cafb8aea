/// 3GPP TS 27.007 §7.2 Network registration `+CREG` (circuit-switched).
///
/// Read: `+CREG: <n>,<stat>[,[<lac>],[<ci>],[<AcT>][,<cause_type>,<reject_cause>]]`. LPWA modules
/// answer it too, usually mirroring `+CEREG`; the probe falls back on it when `+CEREG` is missing.
public enum CREG {
    /// `AT+CREG=<n>` (0…3 per 27.007).
    public struct Set: ATCommand {
        public var level: Int

        public init(_ level: Int) {
            self.level = level
        }

        public var command: String { "AT+CREG=\(level)" }
    }

    /// `AT+CREG?`.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CREG?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> RegistrationStatus {
            try RegistrationReadParser.parse(response, domain: .circuitSwitched)
        }
    }
}
