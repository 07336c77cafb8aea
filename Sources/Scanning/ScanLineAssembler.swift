/// Cuts a scanner's byte stream into scans: one payload per line, ended by the scanner's suffix
/// (CR, LF, CR LF, and Tab when asked). Fed one byte at a time, so the same code serves standard
/// input, a serial scanner and the characters an evdev scanner types.
///
/// Untrusted bytes: a scan longer than ``maxPayloadBytes`` is rejected (its bytes are not kept
/// past the cap), a scan with a control character or bytes that are not UTF-8 is rejected, and an
/// empty line is no scan. A rejection covers the whole line; the next line starts clean.
public struct ScanLineAssembler: Sendable {
    /// Why 2048 bytes: the seed's bind JSON is about 150 bytes and a label URL about 50; the
    /// ingest API's payload cap is the same order. A stream without a suffix is cut off here
    /// rather than kept in memory.
    public static let maxPayloadBytes = 2048

    public let endsWithTab: Bool
    private var buffer: [UInt8] = []
    private var length = 0
    private var problem: ScanRejection.Reason?

    /// - Parameter endsWithTab: a Tab ends a scan too (a scanner configured with a Tab suffix);
    ///   otherwise a Tab is a control character in the scan.
    public init(endsWithTab: Bool = false) {
        self.endsWithTab = endsWithTab
        buffer.reserveCapacity(256)
    }

    /// Feeds one byte; returns a scan when the byte ended one.
    public mutating func feed(_ byte: UInt8) -> ScanRead? {
        if byte == 0x0A || byte == 0x0D || (endsWithTab && byte == 0x09) {
            return finishLine()
        }
        if problem == nil {
            if byte < 0x20 || byte == 0x7F {
                problem = .controlCharacter(byte, offset: length)
            } else if length >= Self.maxPayloadBytes {
                problem = .tooLong(bytes: length + 1)
            }
        }
        if case .tooLong = problem {
            problem = .tooLong(bytes: length + 1)
        } else if problem == nil {
            buffer.append(byte)
        }
        length += 1
        return nil
    }

    /// Marks the scan being typed as bad (an evdev key the key map lacks); it is rejected when it ends.
    public mutating func poison(_ reason: ScanRejection.Reason) {
        if problem == nil { problem = reason }
        length += 1
    }

    /// The end of the input: a last scan without a suffix still counts.
    public mutating func finish() -> ScanRead? {
        finishLine()
    }

    private mutating func finishLine() -> ScanRead? {
        defer {
            buffer.removeAll(keepingCapacity: true)
            length = 0
            problem = nil
        }
        if let problem { return .rejected(ScanRejection(problem)) }
        guard !buffer.isEmpty else { return nil }
        guard let text = String(validating: buffer, as: UTF8.self) else {
            return .rejected(ScanRejection(.invalidUTF8))
        }
        return .payload(text)
    }
}
