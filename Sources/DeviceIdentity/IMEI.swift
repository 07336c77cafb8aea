/// An International Mobile Equipment Identity: 14 digits plus a Luhn check digit.
///
/// 3GPP TS 23.003 §6.2.1 defines the layout (TAC 8 digits, serial 6 digits, check digit);
/// 3GPP TS 27.007 §5.4 (`+CGSN`) is where a modem reports it.
public struct IMEI: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The 15 decimal digits.
    public let digits: String

    /// Validates `text` as a 15-digit IMEI with a correct Luhn check digit.
    ///
    /// Leading/trailing whitespace is ignored; anything else that is not a digit is rejected.
    public init(_ text: String) throws(IdentityError) {
        let trimmed = text.trimmingASCIIWhitespace()
        guard trimmed.utf8.count == 15, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .invalidIMEI(trimmed, reason: "must be exactly 15 decimal digits")
        }
        guard Luhn.isValid(trimmed) else {
            throw .invalidIMEI(
                trimmed,
                reason: "Luhn check digit does not match (expected \(Luhn.checkDigit(for: String(trimmed.prefix(14)))))"
            )
        }
        self.digits = trimmed
    }

    /// The Type Allocation Code: the first 8 digits, which identify the module model.
    public var typeAllocationCode: String { String(digits.prefix(8)) }

    public var description: String { digits }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self = try IMEI(container.decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(digits)
    }
}
