/// 3GPP TS 27.007 §7.3 PLMN selection `+COPS`.
public enum COPS {
    /// `<format>` of `<oper>`.
    public enum Format: Int, Sendable, Hashable {
        /// Long alphanumeric name.
        case long = 0
        /// Short alphanumeric name.
        case short = 1
        /// Numeric MCC+MNC (`26201`): stable across firmware languages, what the probe reports.
        case numeric = 2
    }

    /// `AT+COPS?` → `+COPS: <mode>[,<format>,<oper>[,<AcT>]]`; a bare `+COPS: 0` when not registered.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+COPS?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> OperatorSelection {
            let parameters = try response.parameters(for: "+COPS")
            guard let mode = parameters.int(0) else {
                throw ATResponseParseError(response, "expected +COPS: <mode>[,<format>,<oper>[,<AcT>]]")
            }
            let name = parameters.string(2)
            return OperatorSelection(
                mode: mode,
                format: parameters.int(1).flatMap(Format.init(rawValue:)),
                name: name?.isEmpty == true ? nil : name,
                accessTechnology: parameters.int(3)
            )
        }
    }

    /// `AT+COPS=3,<format>`: sets only the format of later `AT+COPS?` answers (mode 3 does not
    /// touch registration).
    public struct SetFormat: ATCommand {
        public var format: Format

        public init(_ format: Format) {
            self.format = format
        }

        public var command: String { "AT+COPS=3,\(format.rawValue)" }
    }

    /// `AT+COPS=0` (automatic selection) or `AT+COPS=1,2,"<mccmnc>"` (manual). Can run a full
    /// network search before answering: ``ATCommandTimeout/operatorSelection``.
    public struct Select: ATCommand {
        /// nil selects automatically.
        public var plmn: String?

        /// - Throws: ``ATCommandArgumentError`` unless `plmn` is 5 or 6 digits.
        public init(plmn: String? = nil) throws(ATCommandArgumentError) {
            if let plmn, !(5...6).contains(plmn.count) || !plmn.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw ATCommandArgumentError(command: "+COPS", argument: "PLMN", reason: "5 or 6 digits (MCC+MNC)")
            }
            self.plmn = plmn
        }

        public var command: String { plmn.map { "AT+COPS=1,2,\"\($0)\"" } ?? "AT+COPS=0" }

        public var timeout: Duration? { ATCommandTimeout.operatorSelection }
    }

    /// `AT+COPS=?`: scans for networks; minutes (``ATCommandTimeout/operatorScan``). The answer is
    /// returned as the raw line, since its `(...)` tuple syntax is only for display.
    public struct Scan: ATCommand {
        public init() {}

        public var command: String { "AT+COPS=?" }

        public var timeout: Duration? { ATCommandTimeout.operatorScan }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> [String] {
            response.values(for: "+COPS")
        }
    }
}
