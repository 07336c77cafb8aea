/// 3GPP TS 27.007 §8.65 Remaining PIN retries `+CPINR`.
///
/// `AT+CPINR="SIM PIN"` → `+CPINR: SIM PIN,<retries>[,<default_retries>]` (nRF91, SARA-R4, BG9x
/// firmware that has it). Read before entering a PIN automatically: with one attempt left a wrong
/// PIN locks the SIM behind its PUK.
public enum CPINR {
    /// One `<code>`'s counter.
    public struct Retries: Sendable, Hashable {
        /// `SIM PIN`, `SIM PUK`, ...
        public var code: String
        /// Attempts left.
        public var remaining: Int
        /// Attempts a fresh SIM has (3 for a PIN, 10 for a PUK), when reported.
        public var initial: Int?

        public init(code: String, remaining: Int, initial: Int? = nil) {
            self.code = code
            self.remaining = remaining
            self.initial = initial
        }
    }

    /// `AT+CPINR="<code>"`; ``parse(_:)`` gives the counter of `code`.
    public struct Read: ATCommand {
        public var code: String

        public init(_ code: String = "SIM PIN") {
            self.code = code
        }

        public var command: String { "AT+CPINR=\"\(code)\"" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> Retries {
            for line in response.lines {
                guard let counter = CPINR.parse(line: line), counter.code.uppercased() == code.uppercased() else {
                    continue
                }
                return counter
            }
            throw ATResponseParseError(response, "expected +CPINR: \(code),<retries>")
        }
    }

    /// `+CPINR: SIM PIN,3,3` (some firmware quotes the code) → the counter.
    static func parse(line: String) -> Retries? {
        guard line.hasPrefix("+CPINR:") else { return nil }
        let parameters = ATParameterList(String(line.dropFirst("+CPINR:".count)))
        guard let code = parameters.string(0), let remaining = parameters.int(1) else { return nil }
        return Retries(code: code, remaining: remaining, initial: parameters.int(2))
    }
}
