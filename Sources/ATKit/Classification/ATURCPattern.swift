/// How to recognise one kind of unsolicited result code (URC), 3GPP TS 27.007 §4.2.
///
/// Dialects supply their own patterns on top of ``ATURCTable/ts27007Baseline``.
public struct ATURCPattern: Sendable, Hashable, CustomStringConvertible {
    /// What part of the line is compared.
    public enum Match: Sendable, Hashable {
        /// An information-style name: `+CEREG` matches `+CEREG: 1`, `+CEREG:1` (Hi2115 prints no
        /// space) and a bare `+CEREG`, but not `+CEREGX: 1`.
        case name(String)
        /// The whole (trimmed) line: `RDY`, `APP RDY`, `Neul`.
        case line(String)
        /// The start of the line: `REBOOT_CAUSE_` matches `REBOOT_CAUSE_APPLICATION_AT`.
        case lineStart(String)
    }

    public var match: Match

    /// Lines that belong to the URC after the matched one, e.g. 1 for `+CMT:` whose message (text or
    /// PDU) follows on the next line (3GPP TS 27.005 §3.4.1).
    public var trailingLineCount: Int

    /// For names that are both a URC and the information line of a read command (`+CEREG`,
    /// `+CGREG`, `+CREG`, `+CSCON`): the range of the leading `<n>` setting that only the read
    /// response carries. See ``ATLineClassifier`` for the shape rule.
    public var readResponseSettingRange: ClosedRange<Int>?

    public init(match: Match, trailingLineCount: Int = 0, readResponseSettingRange: ClosedRange<Int>? = nil) {
        self.match = match
        self.trailingLineCount = max(0, trailingLineCount)
        self.readResponseSettingRange = readResponseSettingRange
    }

    /// A ``Match/name(_:)`` pattern.
    public static func name(
        _ name: String,
        trailingLineCount: Int = 0,
        readResponseSettingRange: ClosedRange<Int>? = nil
    ) -> ATURCPattern {
        ATURCPattern(
            match: .name(name),
            trailingLineCount: trailingLineCount,
            readResponseSettingRange: readResponseSettingRange
        )
    }

    /// A ``Match/line(_:)`` pattern.
    public static func line(_ text: String) -> ATURCPattern {
        ATURCPattern(match: .line(text))
    }

    /// A ``Match/lineStart(_:)`` pattern.
    public static func lineStart(_ text: String) -> ATURCPattern {
        ATURCPattern(match: .lineStart(text))
    }

    /// The text compared against lines; also the ``ATURC/name`` of matching URCs.
    public var key: String {
        switch match {
        case .name(let text), .line(let text), .lineStart(let text): text
        }
    }

    public var description: String {
        switch match {
        case .name(let name): "\(name): …"
        case .line(let text): text
        case .lineStart(let text): "\(text)…"
        }
    }

    /// Whether the trimmed `line` matches.
    public func matches(_ line: String) -> Bool {
        switch match {
        case .name(let name):
            guard line.hasPrefix(name) else { return false }
            let rest = line.utf8.dropFirst(name.utf8.count)
            return rest.isEmpty || rest.first == UInt8(ascii: ":")
        case .line(let text):
            return line == text
        case .lineStart(let text):
            return line.hasPrefix(text)
        }
    }
}
