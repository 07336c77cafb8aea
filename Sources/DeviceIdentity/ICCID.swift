/// A SIM card's Integrated Circuit Card Identifier (ITU-T E.118): 18 to 22 characters.
///
/// Modems report it through vendor commands (`AT+NCCID`, `AT+QCCID`, `AT+CCID`, `AT%XICCID`;
/// see `docs/at-dialects.md` §5). Some SIMs pad with a trailing `F` nibble, which is kept as reported
/// (upper-cased) because operators look the value up verbatim.
public struct ICCID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let value: String

    /// Accepts 18 to 22 characters: decimal digits, optionally ending in `F` padding.
    public init(_ text: String) throws(IdentityError) {
        let trimmed = text.trimmingASCIIWhitespace().uppercased()
        let body = trimmed.utf8.reversed().drop(while: { $0 == UInt8(ascii: "F") })
        guard (18...22).contains(trimmed.utf8.count), !body.isEmpty,
            body.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else {
            throw .invalidICCID(trimmed, reason: "must be 18 to 22 decimal digits (a trailing F pad is allowed)")
        }
        self.value = trimmed
    }

    public var description: String { value }

    public init(from decoder: any Decoder) throws {
        self = try ICCID(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
