/// One command for ``ATSession/send(_:)``: the command line, its timeout, what its response looks
/// like, and for prompt commands the payload.
///
/// The command line follows 3GPP TS 27.007 §4.1 / V.250: it starts with `AT`, may hold several
/// commands separated by `;`, and is sent followed by the `S3` terminator (CR, V.250 §6.2.1). It must not contain
/// CR, LF or other control characters itself.
///
/// ```swift
/// let imsi = try await session.send("AT+CIMI")                      // bare-text answer
/// let reg = try await session.send(ATCommandRequest("AT+CEREG?"))   // +CEREG: <n>,<stat>...
/// let attach = ATCommandRequest("AT+CGATT=1", timeout: .seconds(60))
/// let sms = ATCommandRequest("AT+CMGS=23", payload: pdu + [0x1A])   // waits for "> " first
/// ```
public struct ATCommandRequest: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The command line without terminator, e.g. `AT+CEREG?`.
    public var command: String
    /// How long to wait for the final result after writing the command; nil uses
    /// ``ATSessionConfiguration/defaultTimeout``. Slow commands need their own: `AT+COPS=?` minutes,
    /// `AT+CGATT=1` up to 60 s on BC95, `AT+NRB` ~40 s (see `docs/at-dialects.md` §10).
    public var timeout: Duration?
    /// Overrides the information-line names derived from the command (``ATResponseExpectation``).
    public var responsePrefixes: [String]?
    /// Overrides whether bare text lines belong to the response (``ATResponseExpectation``).
    public var allowsBareText: Bool?
    /// Bytes written after the modem printed ``prompt``; nil for ordinary commands. Include any
    /// terminator the command needs (Ctrl-Z, 0x1A, for `+CMGS` text and PDU mode).
    public var payload: [UInt8]?
    /// The prompt that precedes the payload.
    public var prompt: ATPrompt

    /// An ordinary command.
    public init(
        _ command: String,
        timeout: Duration? = nil,
        responsePrefixes: [String]? = nil,
        allowsBareText: Bool? = nil
    ) {
        self.command = command
        self.timeout = timeout
        self.responsePrefixes = responsePrefixes
        self.allowsBareText = allowsBareText
        self.payload = nil
        self.prompt = .greaterThan
    }

    /// A command that waits for `prompt`, then receives `payload` (`AT+CMGS`, `AT+QISEND`,
    /// `AT+CASEND`, `AT+USOST`).
    public init(
        _ command: String,
        payload: [UInt8],
        prompt: ATPrompt = .greaterThan,
        timeout: Duration? = nil,
        responsePrefixes: [String]? = nil
    ) {
        self.init(command, timeout: timeout, responsePrefixes: responsePrefixes)
        self.payload = payload
        self.prompt = prompt
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public var description: String { command }

    /// What the classifier should expect while this command is in flight.
    public var expectation: ATResponseExpectation {
        var echoes = [command.trimmingSpaces()]
        if let payload {
            let text = String(decoding: payload.filter { $0 >= 0x20 && $0 != 0x7F }, as: UTF8.self).trimmingSpaces()
            if !text.isEmpty { echoes.append(text) }
        }
        return ATResponseExpectation(
            command: command,
            prefixes: responsePrefixes,
            allowsBareText: allowsBareText,
            echoes: echoes,
            prompt: payload == nil ? nil : prompt
        )
    }

    /// Throws ``ATError/invalidCommand(command:reason:)`` for command lines that would break framing.
    func validate() throws(ATError) {
        if command.trimmingSpaces().isEmpty {
            throw .invalidCommand(command: command, reason: "empty command line")
        }
        if command.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw .invalidCommand(
                command: command,
                reason: "control characters (CR, LF, Ctrl-Z...) are not allowed in a command line; "
                    + "the session adds the terminator and sends payloads after the prompt"
            )
        }
    }
}
