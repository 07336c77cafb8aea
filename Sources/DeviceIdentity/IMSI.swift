/// An International Mobile Subscriber Identity: MCC (3) + MNC (2–3) + MSIN, at most 15 digits.
///
/// 3GPP TS 23.003 §2.2; read with `AT+CIMI` (3GPP TS 27.007 §5.6).
public struct IMSI: Hashable, Sendable, Codable, CustomStringConvertible {
    public let digits: String

    /// Accepts 6 to 15 decimal digits.
    public init(_ text: String) throws(IdentityError) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard (6...15).contains(trimmed.utf8.count), trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .invalidIMSI(trimmed, reason: "must be 6 to 15 decimal digits")
        }
        self.digits = trimmed
    }

    /// The Mobile Country Code (first three digits).
    public var mobileCountryCode: String { String(digits.prefix(3)) }

    public var description: String { digits }

    public init(from decoder: any Decoder) throws {
        self = try IMSI(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(digits)
    }
}
