/// 3GPP TS 27.007 §10.1.22 EPS network registration status `+CEREG` (LTE, LTE-M, NB-IoT).
///
/// `<n>` chooses what the URC (and the read response) carries:
/// 0 nothing unsolicited, 1 `<stat>`, 2 + location (`<tac>`, `<ci>`, `<AcT>`), 3 + reject cause,
/// 4 + PSM timers (Active-Time, Periodic-TAU) without cause, 5 everything. The gateway runs at 5,
/// falling back to 4 and 2 on modules that refuse it.
public enum CEREG {
    /// `<n>`.
    public enum ReportingLevel: Int, Sendable, Hashable, CaseIterable, Comparable {
        case disabled = 0
        case status = 1
        case location = 2
        case locationAndCause = 3
        case psm = 4
        case psmAndCause = 5

        public static func < (lhs: ReportingLevel, rhs: ReportingLevel) -> Bool {
            lhs.rawValue < rhs.rawValue
        }
    }

    /// `AT+CEREG=<n>`.
    public struct Set: ATCommand {
        public var level: ReportingLevel

        public init(_ level: ReportingLevel) {
            self.level = level
        }

        public var command: String { "AT+CEREG=\(level.rawValue)" }
    }

    /// `AT+CEREG?` → `+CEREG: <n>,<stat>[,...]`. URCs that arrive meanwhile (no leading `<n>`)
    /// are told apart by shape (``ATLineClassifier``) and go to the URC stream.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CEREG?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> RegistrationStatus {
            try RegistrationReadParser.parse(response, domain: .eps)
        }
    }
}
