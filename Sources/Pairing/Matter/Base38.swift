/// The base38 encoding of Matter QR payloads (Matter Core spec §5.1.3).
///
/// Alphabet `0-9`, `A-Z`, `-`, `.` (values 0–37). Bytes are taken in groups of 3 (little-endian, 24 bits) and written
/// as 5 characters, least significant base38 digit first; a trailing group of 2 bytes becomes 4 characters and a
/// trailing single byte 2 characters. Decoding rejects characters outside the alphabet, lengths that leave 1 or 3
/// characters after the 5-character chunks, and chunks whose value does not fit their byte count.
public enum Base38 {
    /// The 38 characters, index = digit value.
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-.")

    /// Encodes bytes into base38 text (3 bytes → 5 characters, 2 → 4, 1 → 2).
    public static func encode(_ bytes: [UInt8]) -> String {
        var result = ""
        result.reserveCapacity((bytes.count + 2) / 3 * 5)
        var start = 0
        while start < bytes.count {
            let byteCount = min(3, bytes.count - start)
            var value = 0
            for offset in 0..<byteCount {
                value |= Int(bytes[start + offset]) << (8 * offset)
            }
            for _ in 0..<characterCount(forBytes: byteCount) {
                result.append(alphabet[value % 38])
                value /= 38
            }
            start += byteCount
        }
        return result
    }

    /// Decodes base38 text; `""` decodes to `[]`. Error positions are 1-based character positions in `text`.
    public static func decode(_ text: String) throws(MatterPayloadError) -> [UInt8] {
        try decode(text[...], positionOffset: 0)
    }

    /// Decodes base38 text whose first character sits at position `positionOffset + 1` of a larger input,
    /// so that errors point into that input.
    static func decode(_ text: Substring, positionOffset: Int) throws(MatterPayloadError) -> [UInt8] {
        var digits: [Int] = []
        digits.reserveCapacity(text.utf8.count)
        for (index, character) in text.enumerated() {
            guard let value = digitValue(character) else {
                throw .invalidBase38Character(
                    position: positionOffset + index + 1,
                    character: MatterUntrustedText.escaped(String(character))
                )
            }
            digits.append(value)
        }
        guard [0, 2, 4].contains(digits.count % 5) else {
            throw .invalidBase38Length(characterCount: digits.count)
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 5 * 3 + 2)
        var start = 0
        while start < digits.count {
            let chunkLength = min(5, digits.count - start)  // 5, 4 or 2, checked above.
            let byteCount = chunkLength == 5 ? 3 : chunkLength == 4 ? 2 : 1
            var value = 0
            for index in (start..<start + chunkLength).reversed() {
                value = value * 38 + digits[index]
            }
            guard value < 1 << (8 * byteCount) else {
                throw .base38ChunkOverflow(position: positionOffset + start + 1, value: value, byteCount: byteCount)
            }
            for offset in 0..<byteCount {
                bytes.append(UInt8(truncatingIfNeeded: value >> (8 * offset)))
            }
            start += chunkLength
        }
        return bytes
    }

    /// The value of one base38 character, or nil when it is not in the alphabet (lower case is not).
    static func digitValue(_ character: Character) -> Int? {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return nil }
        switch scalar.value {
        case 0x30...0x39: return Int(scalar.value) - 0x30  // 0-9
        case 0x41...0x5A: return Int(scalar.value) - 0x41 + 10  // A-Z
        case 0x2D: return 36  // -
        case 0x2E: return 37  // .
        default: return nil
        }
    }

    private static func characterCount(forBytes byteCount: Int) -> Int {
        switch byteCount {
        case 1: 2
        case 2: 4
        default: 5
        }
    }
}
