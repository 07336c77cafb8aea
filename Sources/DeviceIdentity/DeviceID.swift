/// The cloud's identifier for a registered device (the seed's `actionData.id`).
///
/// Tuya-style clouds issue 20–22 character alphanumeric ids; other clouds differ, so the rule is
/// deliberately loose but safe to print, log and put in a URL: 1–64 characters of `[A-Za-z0-9_.-]`.
public struct DeviceID: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    public let rawValue: String

    public init(_ text: String) throws(IdentityError) {
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy(DeviceID.isAllowed) else {
            throw .invalidDeviceID(
                String(text.prefix(80)),
                reason: "must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' or '-'"
            )
        }
        self.rawValue = text
    }

    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        self = try DeviceID(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
