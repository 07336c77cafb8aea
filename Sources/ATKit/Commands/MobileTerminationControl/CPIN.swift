/// 3GPP TS 27.007 §8.3 Enter PIN `+CPIN`: the read form, which reports the SIM state, and the set
/// form, which enters a PIN (or a PUK and a new PIN).
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

    /// `AT+CPIN="<pin>"` (or `AT+CPIN="<puk>","<newpin>"`): `OK` when accepted, `+CME ERROR: 16`
    /// (incorrect password) when not; the SIM then takes a moment to become `READY`.
    ///
    /// Its command line holds the secret: never log ``command``, nor the description of an
    /// ``ATError`` it ends with (both carry it); log ``ATCommandRedaction/redact(_:)`` of it instead.
    public struct Enter: ATCommand {
        public var pin: String
        public var newPIN: String?

        /// - Throws: ``ATCommandArgumentError`` unless `pin` (and `newPIN`) are 4 to 8 digits
        ///   (3GPP TS 31.101 §9.3: PINs are 4–8 digits, a PUK 8).
        public init(pin: String, newPIN: String? = nil) throws(ATCommandArgumentError) {
            for value in [pin] + (newPIN.map { [$0] } ?? []) {
                guard (4...8).contains(value.utf8.count), value.utf8.allSatisfy({ (48...57).contains($0) }) else {
                    throw ATCommandArgumentError(
                        command: "+CPIN",
                        argument: "pin",
                        reason: "a SIM PIN or PUK is 4 to 8 digits"
                    )
                }
            }
            self.pin = pin
            self.newPIN = newPIN
        }

        public var command: String {
            "AT+CPIN=\"\(pin)\"" + (newPIN.map { ",\"\($0)\"" } ?? "")
        }

        /// SIM access can take a few seconds on some modules (BG95 answers after `+CPIN: READY`).
        public var timeout: Duration? { .seconds(20) }
    }
}
