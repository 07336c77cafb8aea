/// 3GPP TS 27.007 §8.3 Enter PIN `+CPIN`: here only the read form, which reports the SIM state.
public enum CPIN {
    /// `AT+CPIN?` → `+CPIN: READY`, `+CPIN: SIM PIN`, ...
    ///
    /// Without a SIM the answer is an error, not a line (`+CME ERROR: 10`, `13`, or `ERROR` on
    /// BC66 with CMEE=0): use ``SIMState/init(error:)`` to turn that into a state.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CPIN?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> SIMState {
            guard let code = try response.parameters(for: "+CPIN").string(0) else {
                throw ATResponseParseError(response, "expected +CPIN: <code>")
            }
            return SIMState(code: code)
        }
    }
}
