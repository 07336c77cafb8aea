import NBGWCore

/// What a scanner's input gave: one payload, or a scan that cannot be a payload and why.
public enum ScanRead: Sendable, Equatable {
    case payload(String)
    case rejected(ScanRejection)
}

/// A scan refused before anything parses it: what was wrong, with the error code `bind` would give.
public struct ScanRejection: Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// Longer than ``ScanLineAssembler/maxPayloadBytes``.
        case tooLong(bytes: Int)
        /// A control byte (not the scanner's suffix) at this offset in the scan.
        case controlCharacter(UInt8, offset: Int)
        /// The bytes are not UTF-8.
        case invalidUTF8
        /// A key the scanner's key map does not know (evdev).
        case unknownKey(UInt16)
    }

    public var reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    /// The code a scan session reports for it.
    public var code: ErrorCode {
        switch reason {
        case .tooLong: .payloadTooLarge
        case .controlCharacter, .invalidUTF8, .unknownKey: .invalidQR
        }
    }

    public var description: String {
        switch reason {
        case .tooLong(let bytes):
            "the scan has \(bytes) bytes, more than the \(ScanLineAssembler.maxPayloadBytes) a label payload may have; "
                + "is the scanner set to add a suffix (Enter) after each code?"
        case .controlCharacter(let byte, let offset):
            "the scan has a control character (0x\(String(byte, radix: 16, uppercase: true))) at byte \(offset); "
                + "set the scanner to send the code with no prefix and Enter as its only suffix"
        case .invalidUTF8:
            "the scan is not UTF-8 text; set the scanner's character set to UTF-8 (or ASCII)"
        case .unknownKey(let code):
            "the scanner typed key code \(code), which its key map does not have; check the scanner's keyboard "
                + "language matches --keymap (docs/labels-and-scanning.md)"
        }
    }
}
