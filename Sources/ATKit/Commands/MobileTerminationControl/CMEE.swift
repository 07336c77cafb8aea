/// 3GPP TS 27.007 §9.1 Report mobile termination error `+CMEE`.
///
/// With `<n>` = 0 a failing command only says `ERROR`; with 1 it says `+CME ERROR: <code>`
/// (§9.2), which the probe needs to tell "SIM not inserted" (10) from "not supported" (4).
public enum CMEE {
    /// `<n>`.
    public enum Mode: Int, Sendable, Hashable {
        /// Plain `ERROR`.
        case disabled = 0
        /// `+CME ERROR: <numeric code>`.
        case numeric = 1
        /// `+CME ERROR: <verbose text>`.
        case verbose = 2
    }

    /// `AT+CMEE=<n>`.
    public struct Set: ATCommand {
        public var mode: Mode

        public init(_ mode: Mode) {
            self.mode = mode
        }

        public var command: String { "AT+CMEE=\(mode.rawValue)" }
    }

    /// `AT+CMEE?` → `+CMEE: <n>`.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CMEE?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> Int {
            guard let value = try response.parameters(for: "+CMEE").int(0) else {
                throw ATResponseParseError(response, "expected +CMEE: <n>")
            }
            return value
        }
    }
}
