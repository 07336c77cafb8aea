/// 3GPP TS 27.007 §10.1.9 PS attach or detach `+CGATT`.
public enum CGATT {
    /// `AT+CGATT=1|0`: runs the attach or detach procedure before answering
    /// (``ATCommandTimeout/attach``).
    public struct Set: ATCommand {
        public var attached: Bool

        public init(attached: Bool) {
            self.attached = attached
        }

        public var command: String { "AT+CGATT=\(attached ? 1 : 0)" }

        public var timeout: Duration? { ATCommandTimeout.attach }
    }

    /// `AT+CGATT?` → `+CGATT: <state>`.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CGATT?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> Bool {
            guard let state = try response.parameters(for: "+CGATT").int(0), state == 0 || state == 1 else {
                throw ATResponseParseError(response, "expected +CGATT: 0|1")
            }
            return state == 1
        }
    }
}
