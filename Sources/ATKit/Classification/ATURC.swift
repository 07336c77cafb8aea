/// An unsolicited result code: a line the modem sent on its own (3GPP TS 27.007 §4.2), such as a
/// registration change (`+CEREG: 5`, §10.1.22), a boot marker (`RDY`) or an incoming-data notice.
public struct ATURC: Sendable, Hashable, CustomStringConvertible {
    /// The matched pattern's key (`+CEREG`, `RDY`, `REBOOT_CAUSE_`), or for an unrecognised line the
    /// name before its colon (`+QIURC`).
    public var name: String
    /// The whole line, trimmed.
    public var line: String
    /// Lines that belong to the URC (``ATURCPattern/trailingLineCount``).
    public var trailingLines: [String]
    /// Whether a pattern of the ``ATURCTable`` matched. Unrecognised URCs are lines that look like
    /// result codes (`+NAME: ...`) but that neither the table nor the in-flight command claims.
    public var isRecognised: Bool

    public init(name: String, line: String, trailingLines: [String] = [], isRecognised: Bool = true) {
        self.name = name
        self.line = line
        self.trailingLines = trailingLines
        self.isRecognised = isRecognised
    }

    /// The text after `name:`, trimmed (`"1,\"1A2B\",\"01A2D101\",9"` for `+CEREG: 1,"1A2B",...`),
    /// or the empty string when the line has no parameters.
    public var parameters: String {
        guard line.hasPrefix(name) else { return "" }
        var rest = Substring(line.dropFirst(name.count))
        if rest.hasPrefix(":") { rest = rest.dropFirst() }
        return rest.trimmingSpaces()
    }

    public var description: String {
        ([line] + trailingLines).joined(separator: " ⏎ ")
    }
}
