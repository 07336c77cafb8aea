/// Cuts a stream of bytes from the modem into lines and bare prompts.
///
/// Feed it bytes as they arrive, in chunks of any size (one byte at a time gives the same result);
/// it returns the events completed by those bytes and keeps the unfinished rest.
///
/// ```
///  bytes:   \r\n+CEREG: 1\r\n\r\nOK\r\n   \n\rF1: 0000 0000\n\r   \r\n>␠
///  events:   line("+CEREG: 1") line("OK") line("F1: 0000 0000")   prompt("> ")
/// ```
///
/// Rules (3GPP TS 27.007 §4.2 and V.250 frame responses as `<CR><LF>text<CR><LF>`, but real modems
/// bend that, see `docs/at-dialects.md` §3):
/// - Any run of CR and LF ends a line, whatever the order: MT2625 (BC66) boot text uses LF-CR, echo is
///   `AT\r` followed by `\r\n`, some BC66 firmware echoes `AT\r` with no LF. Empty lines are dropped.
/// - Other control bytes (NUL, XON/XOFF, Ctrl-Z, ESC, DEL...) are dropped, and invalid UTF-8 is
///   decoded lossily (U+FFFD); a line left with nothing but undecodable bytes is dropped. After a
///   reset SIM7080 can emit PPP frame junk, BC95 emits NULs while waking; none of that may crash the
///   reader or glue itself onto the next line.
/// - A prompt in ``prompts`` is reported as soon as it is the whole content since the start of the
///   line, without waiting for a terminator the modem will never send.
/// - Lines are bounded by ``maxLineLength`` bytes: the excess is discarded up to the next
///   terminator and the line is flagged (``ATLine/truncatedByteCount``), so memory stays bounded
///   even if a device streams garbage with no CR/LF at all.
public struct ATLineFramer: Sendable {
    /// What the framer recognised.
    public enum Event: Sendable, Hashable {
        /// A complete, non-empty line.
        case line(ATLine)
        /// A bare data prompt at the start of a line.
        case prompt(ATPrompt)
    }

    /// Longest line kept, in bytes. `AT+COPS=?` answers with one long line, so keep this generous.
    public let maxLineLength: Int

    /// Prompts recognised without a terminator. ``ATSession`` arms only the prompt the in-flight
    /// command expects, so that an ordinary line that happens to start with `@` is never cut.
    public var prompts: [ATPrompt] {
        didSet { armedPrompts = Self.arm(prompts) }
    }

    private var armedPrompts: [(prompt: ATPrompt, bytes: [UInt8])]
    private var pending: [UInt8] = []
    private var truncatedByteCount = 0

    /// Creates a framer. `maxLineLength` is clamped to at least 16 bytes.
    public init(maxLineLength: Int = 4096, prompts: [ATPrompt] = ATPrompt.standard) {
        self.maxLineLength = max(16, maxLineLength)
        self.prompts = prompts
        self.armedPrompts = Self.arm(prompts)
        pending.reserveCapacity(128)
    }

    /// Bytes of the unfinished line held back.
    public var bufferedByteCount: Int { pending.count }

    /// Consumes `bytes` and returns the events they complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            feed(byte, into: &events)
        }
        return events
    }

    /// Consumes one byte, appending any event it completes to `events`.
    public mutating func feed(_ byte: UInt8, into events: inout [Event]) {
        switch byte {
        case 0x0D, 0x0A:
            if let line = takeLine() {
                events.append(.line(line))
            }
        case 0x00..<0x20 where byte != 0x09, 0x7F:
            return
        default:
            guard pending.count < maxLineLength else {
                truncatedByteCount += 1
                return
            }
            pending.append(byte)
            if truncatedByteCount == 0, let prompt = matchedPrompt() {
                pending.removeAll(keepingCapacity: true)
                events.append(.prompt(prompt))
            }
        }
    }

    /// Ends the stream: returns the unterminated last line, if any, and resets the framer.
    public mutating func finish() -> [Event] {
        takeLine().map { [.line($0)] } ?? []
    }

    /// Discards the unfinished line (e.g. after switching a port's speed).
    public mutating func reset() {
        pending.removeAll(keepingCapacity: true)
        truncatedByteCount = 0
    }

    private mutating func takeLine() -> ATLine? {
        defer { reset() }
        guard !pending.isEmpty else { return nil }
        let text = String(decoding: pending, as: UTF8.self)
        // A "line" made only of undecodable bytes (a UART glitch while a module restarts) carries
        // nothing; passing it on would make it an information line of whatever command is pending.
        if text.unicodeScalars.allSatisfy({ $0 == "\u{FFFD}" || $0 == " " || $0 == "\t" }) {
            return nil
        }
        return ATLine(text, truncatedByteCount: truncatedByteCount)
    }

    private func matchedPrompt() -> ATPrompt? {
        armedPrompts.first { $0.bytes.count == pending.count && $0.bytes == pending }?.prompt
    }

    private static func arm(_ prompts: [ATPrompt]) -> [(prompt: ATPrompt, bytes: [UInt8])] {
        prompts.map { ($0, $0.utf8Bytes) }.filter { !$0.bytes.isEmpty }
    }
}
