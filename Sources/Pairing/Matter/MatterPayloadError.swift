/// Why a Matter onboarding payload (QR code §5.1.3, manual pairing code §5.1.4) was rejected or could not be encoded.
///
/// Cases that quote the input (`found`, `character`) hold an already escaped, length-capped copy made with
/// `MatterUntrustedText`, never the raw text. No case carries a passcode. ``description`` is one sentence that says
/// what is wrong and, where it helps, what to do.
public enum MatterPayloadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which passcode rule of §5.1.6 (and connectedhomeip `IsValidSetupPIN`) a passcode breaks.
    public enum PasscodeRule: String, Sendable, Equatable, CaseIterable {
        /// 0 (00000000) is not a passcode.
        case zero
        /// Below 0 (only reachable when encoding).
        case negative
        /// Above 99999998 (the 27-bit field can hold up to 134217727).
        case aboveMaximum = "above-maximum"
        /// 11111111, 22222222, ..., 88888888.
        case repeatedDigits = "repeated-digits"
        /// 12345678 or 87654321.
        case sequence

        /// The rule `passcode` breaks, or nil when it is a valid passcode.
        public static func violated(by passcode: Int) -> PasscodeRule? {
            if passcode == 0 { return .zero }
            if passcode < 0 { return .negative }
            if passcode > 99_999_998 { return .aboveMaximum }
            if passcode % 11_111_111 == 0 { return .repeatedDigits }  // 11111111 ... 88888888 (99999999 is above).
            if passcode == 12_345_678 || passcode == 87_654_321 { return .sequence }
            return nil
        }
    }

    /// A field the encoder needs but the payload does not have.
    public enum Field: String, Sendable, Equatable {
        case vendorID = "vendor ID"
        case productID = "product ID"
        case rendezvousInformation = "rendezvous information"
    }

    // Input as a whole.
    case empty
    case inputTooLong(length: Int, limit: Int)

    // QR code and base38 (§5.1.3).
    case badPrefix(found: String)
    case multiplePayloads(count: Int)
    /// `position` is 1-based, in characters, within the input after surrounding whitespace is removed.
    case invalidBase38Character(position: Int, character: String)
    /// The base38 text has a length that leaves 1 or 3 characters after the 5-character chunks.
    case invalidBase38Length(characterCount: Int)
    /// The chunk starting at `position` encodes a value too large for `byteCount` bytes.
    case base38ChunkOverflow(position: Int, value: Int, byteCount: Int)
    case payloadTooShort(byteCount: Int)
    case unsupportedVersion(Int)
    case nonZeroPadding(Int)
    case reservedCommissioningFlow(Int)
    case invalidRendezvousInformation(Int)
    case malformedTLVExtension(firstByte: Int)
    case tlvExtensionNotEncodable

    // Manual pairing code (§5.1.4).
    case invalidManualCodeLength(digitCount: Int)
    /// `position` is 1-based, in characters, within the input after surrounding whitespace is removed.
    case nonDigitCharacter(position: Int, character: String)
    case checkDigitMismatch(expected: Int, found: Int)
    case reservedLeadingDigit(Int)
    case vidPidFlagMismatch(flagSet: Bool, digitCount: Int)
    /// `chunk` is 2 (digits 2–6, at most 65535) or 3 (digits 7–10, at most 8191).
    case manualChunkOutOfRange(chunk: Int, value: Int, maximum: Int)

    // Field values (both forms, and the encoder).
    case invalidPasscode(PasscodeRule)
    case invalidDiscriminator(value: Int, isShort: Bool)
    case shortDiscriminatorInQRCode
    case invalidVendorID(Int)
    case invalidProductID(Int, vendorID: Int)
    case missingField(Field)

    public var description: String {
        switch self {
        case .empty:
            "The Matter payload is empty; scan the QR code or type the manual pairing code again."
        case .inputTooLong(let length, let limit):
            "The Matter payload is \(length) bytes long, more than the \(limit) accepted, so it was not read."
        case .badPrefix(let found):
            if found.uppercased().hasPrefix("MT:") {
                "A Matter QR payload must start with upper-case \"MT:\" but this one starts with \"\(found)\"."
            } else {
                "A Matter QR payload must start with \"MT:\" but this one starts with \"\(found)\"; "
                    + "check that the scanned code is a Matter code."
            }
        case .multiplePayloads(let count):
            "The QR code holds \(count) Matter payloads joined with '*', which is not supported; "
                + "commission each device from its own code."
        case .invalidBase38Character(let position, let character):
            "Character \(position) of the Matter QR payload, \"\(character)\", is not in the base38 alphabet "
                + "(0-9, upper-case A-Z, '-' and '.'); scan the code again."
        case .invalidBase38Length(let count):
            "The base38 part of the Matter QR payload has \(count) characters, a length no valid payload has, "
                + "so a character is missing or extra."
        case .base38ChunkOverflow(let position, let value, let byteCount):
            "The base38 chunk at character \(position) of the Matter QR payload encodes \(value), "
                + "more than \(byteCount) byte\(byteCount == 1 ? "" : "s") can hold, so the code is corrupt."
        case .payloadTooShort(let byteCount):
            "The Matter QR payload decodes to \(byteCount) bytes but needs at least 11 (88 bits); "
                + "it is truncated."
        case .unsupportedVersion(let version):
            "The Matter QR payload has version \(version) but only version 0 is defined, "
                + "so it cannot be read safely."
        case .nonZeroPadding(let padding):
            "The 4 padding bits of the Matter QR payload are \(padding) instead of 0, so the code is corrupt "
                + "or not a Matter code."
        case .reservedCommissioningFlow(let value):
            "The Matter payload uses commissioning flow \(value), which is reserved; "
                + "only 0 (standard), 1 (user intent) and 2 (custom) are defined."
        case .invalidRendezvousInformation(let value):
            "The rendezvous information \(value) does not fit the 8-bit discovery-capabilities field."
        case .malformedTLVExtension(let firstByte):
            "The optional data after the Matter QR payload's fixed part starts with byte "
                + "0x\(String(firstByte, radix: 16, uppercase: true)) instead of an anonymous TLV structure (0x15), "
                + "so the code is corrupt."
        case .tlvExtensionNotEncodable:
            "The payload carries optional TLV data that was not kept when it was decoded, so it cannot be "
                + "re-encoded as a QR code without losing it."
        case .invalidManualCodeLength(let count):
            "A Matter manual pairing code has 11 or 21 digits but this one has \(count); "
                + "check for a missing or extra digit."
        case .nonDigitCharacter(let position, let character):
            "Character \(position) of the manual pairing code, \"\(character)\", is not a digit; "
                + "only digits 0-9 and the separators '-' and ' ' are allowed."
        case .checkDigitMismatch:
            "The manual pairing code's Verhoeff check digit does not match, so a digit was probably mistyped; "
                + "re-enter the code from the label."
        case .reservedLeadingDigit(let digit):
            "A Matter manual pairing code cannot start with \(digit) (leading digits 8 and 9 are reserved); "
                + "check the first digit."
        case .vidPidFlagMismatch(let flagSet, let count):
            flagSet
                ? "The manual pairing code's first digit says a vendor and product ID follow, but the code has "
                    + "\(count) digits instead of 21; check the first digit and the length."
                : "The manual pairing code's first digit says no vendor and product ID follow, but the code has "
                    + "\(count) digits instead of 11; check the first digit and the length."
        case .manualChunkOutOfRange(let chunk, let value, let maximum):
            "Digits \(chunk == 2 ? "2-6" : "7-10") of the manual pairing code read \(value), more than the "
                + "\(maximum) the format allows, so the code was mistyped."
        case .invalidPasscode(let rule):
            switch rule {
            case .zero, .negative:
                "The setup passcode is \(rule == .zero ? "0" : "negative"), which is not allowed; "
                    + "passcodes run from 00000001 to 99999998."
            case .aboveMaximum:
                "The setup passcode is above 99999998, the largest allowed value, so this payload cannot be "
                    + "used for commissioning."
            case .repeatedDigits:
                "The setup passcode is one digit repeated eight times (like 11111111), which the Matter spec "
                    + "forbids; the device must be given a different passcode."
            case .sequence:
                "The setup passcode is 12345678 or 87654321, which the Matter spec forbids; "
                    + "the device must be given a different passcode."
            }
        case .invalidDiscriminator(let value, let isShort):
            isShort
                ? "The short discriminator \(value) is outside the 4-bit range 0-15."
                : "The discriminator \(value) is outside the 12-bit range 0-4095."
        case .shortDiscriminatorInQRCode:
            "The payload only has the 4-bit short discriminator (from a manual code), but a QR code needs the "
                + "full 12-bit discriminator."
        case .invalidVendorID(let vendorID):
            "The vendor ID \(vendorID) is not valid; it must be 0 (unspecified) or 1-65524 (0xFFF4)."
        case .invalidProductID(let productID, let vendorID):
            productID == 0
                ? "The product ID is 0, which is only allowed when the vendor ID is also 0 (here \(vendorID))."
                : "The product ID \(productID) does not fit in 16 bits."
        case .missingField(let field):
            "The payload has no \(field.rawValue), which this encoding needs."
        }
    }
}
