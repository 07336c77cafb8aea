/// A data prompt: text the modem prints, without a line terminator, when it waits for a payload.
///
/// After commands such as `AT+CMGS` (3GPP TS 27.005 §3.5.1), `AT+QISEND`, `AT+CASEND` the modem
/// prints `"> "` and waits; u-blox SARA-R4 prints `"@"` after `AT+USOST`; SIM7080 file writes print
/// a `DOWNLOAD` line. Because the prompt has no terminator, a line framer must recognise it from the
/// bytes alone (see ``ATLineFramer``).
public struct ATPrompt: Sendable, Hashable, CustomStringConvertible {
    /// The exact text that starts the line, e.g. `"> "`.
    public var text: String

    public init(_ text: String) {
        self.text = text
    }

    /// `"> "`: SMS (`+CMGS`, `+CMGW`), Quectel `+QISEND`/`+QMTPUB`, SIMCom `+CASEND`.
    public static let greaterThan = ATPrompt("> ")
    /// `"@"`: u-blox SARA-R4 `+USOST`/`+USOWR` binary mode.
    public static let at = ATPrompt("@")
    /// `"DOWNLOAD"`: SIMCom SIM7080 file system writes (`+CFSWFILE`).
    public static let download = ATPrompt("DOWNLOAD")

    /// The prompts a stand-alone ``ATLineFramer`` recognises by default.
    public static let standard: [ATPrompt] = [.greaterThan, .at]

    public var description: String { text.debugDescription }

    var utf8Bytes: [UInt8] { Array(text.utf8) }
}
