/// 3GPP TS 27.007 §8.2 Set phone functionality `+CFUN`.
///
/// `<fun>`: 0 minimum (radio and SIM off), 1 full, 4 radio off ("flight mode"); vendors add their
/// own (SARA-R4 15 and 16 are resets). Switching takes seconds (``ATCommandTimeout/functionality``).
public enum CFUN {
    /// The functionality levels of 27.007 §8.2 that the gateway uses.
    public enum Level: Sendable, Hashable {
        /// `0`: minimum functionality.
        case minimum
        /// `1`: full functionality.
        case full
        /// `4`: transmit and receive RF circuits disabled.
        case radioOff
        /// Any other value (vendor-specific).
        case other(Int)

        public init(rawValue: Int) {
            switch rawValue {
            case 0: self = .minimum
            case 1: self = .full
            case 4: self = .radioOff
            default: self = .other(rawValue)
            }
        }

        public var rawValue: Int {
            switch self {
            case .minimum: 0
            case .full: 1
            case .radioOff: 4
            case .other(let value): value
            }
        }
    }

    /// `AT+CFUN?` → `+CFUN: <fun>` (some firmware adds a second field: `+CFUN: 1,0`).
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CFUN?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> Level {
            guard let value = try response.parameters(for: "+CFUN").int(0) else {
                throw ATResponseParseError(response, "expected +CFUN: <fun>")
            }
            return Level(rawValue: value)
        }
    }

    /// `AT+CFUN=<fun>[,<rst>]`.
    public struct Set: ATCommand {
        public var level: Level
        /// `<rst>` = 1: reset the MT before setting the level (`AT+CFUN=1,1` reboots Quectel and
        /// SIMCom modules).
        public var reset: Bool

        public init(_ level: Level, reset: Bool = false) {
            self.level = level
            self.reset = reset
        }

        public var command: String { "AT+CFUN=\(level.rawValue)\(reset ? ",1" : "")" }

        public var timeout: Duration? { reset ? ATCommandTimeout.reboot : ATCommandTimeout.functionality }
    }
}
