import Foundation

/// One thing a ``TracingTransport`` saw: bytes in either direction, or the end of the stream.
public struct ATTraceEvent: Sendable, Equatable, CustomStringConvertible {
    /// Which way the bytes went.
    public enum Direction: String, Sendable, Equatable {
        /// From the host to the modem.
        case sent
        /// From the modem to the host.
        case received
        /// The transport reported the end of the stream (``ATTraceEvent/bytes`` is empty).
        case closed
    }

    public var direction: Direction
    public var bytes: [UInt8]
    /// Wall-clock time, for correlating with other logs.
    public var date: Date
    /// For ``Direction/closed``: the error the transport ended with.
    public var note: String?

    public init(direction: Direction, bytes: [UInt8], date: Date = Date(), note: String? = nil) {
        self.direction = direction
        self.bytes = bytes
        self.date = date
        self.note = note
    }

    /// `bytes` as printable text: CR, LF and TAB as `\r`, `\n`, `\t`, other non-printable bytes as
    /// `\xNN`, so a trace line never contains raw control characters or invalid UTF-8.
    public var escapedText: String { Self.escape(bytes) }

    /// `>> AT+CGMI\r` (sent), `<< \r\nQuectel\r\n` (received), `-- closed: ...`.
    public var description: String {
        switch direction {
        case .sent: ">> \(escapedText)"
        case .received: "<< \(escapedText)"
        case .closed: "-- closed\(note.map { ": \($0)" } ?? "")"
        }
    }

    /// Escapes `bytes` as described for ``escapedText``.
    public static func escape(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case 0x0D: text += "\\r"
            case 0x0A: text += "\\n"
            case 0x09: text += "\\t"
            case 0x5C: text += "\\\\"
            case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return text
    }
}
