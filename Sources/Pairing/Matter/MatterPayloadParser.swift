/// Decodes and validates Matter onboarding payloads: QR codes (Matter Core spec §5.1.3) and manual pairing codes
/// (§5.1.4), with the passcode rules of §5.1.6.
///
/// Unlike connectedhomeip, which parses first and validates in a second step, every payload this parser returns is
/// valid; anything else throws a ``MatterPayloadError`` saying which rule failed. Surrounding ASCII whitespace
/// (spaces, tabs, CR, LF — what scanners and terminals add) is ignored.
public enum MatterPayloadParser {
    /// The QR payload prefix (§5.1.3), upper case.
    public static let qrCodePrefix = "MT:"

    /// Inputs longer than this many UTF-8 bytes are rejected before any decoding (a QR code holds at most 4296
    /// alphanumeric characters).
    public static let maximumInputLength = 4096

    /// Decodes a QR payload `MT:` + base38 (§5.1.3).
    ///
    /// The prefix must be exactly `MT:`; several payloads joined with `*` (§5.1.3, concatenation) are rejected;
    /// the 88-bit fixed part must be present, with version 0, zero padding bits, a defined commissioning flow,
    /// a valid passcode (§5.1.6) and a valid vendor/product ID pair. Bytes after the fixed part (the optional TLV
    /// structure) must start an anonymous TLV structure and are reported via `hasTLVExtension`, not decoded.
    public static func parseQRCode(_ text: String) throws(MatterPayloadError) -> MatterSetupPayload {
        let input = try trimmedInput(text)
        guard input.hasPrefix(qrCodePrefix) else {
            throw .badPrefix(found: MatterUntrustedText.escaped(input, limit: 8))
        }
        let body = input.dropFirst(qrCodePrefix.count)
        let payloadCount = body.split(separator: "*", omittingEmptySubsequences: false).count
        guard payloadCount == 1 else { throw .multiplePayloads(count: payloadCount) }
        guard !body.isEmpty else { throw .payloadTooShort(byteCount: 0) }

        let bytes = try Base38.decode(body, positionOffset: qrCodePrefix.count)
        guard bytes.count >= MatterQRCodeLayout.fixedByteCount else {
            throw .payloadTooShort(byteCount: bytes.count)
        }
        let fields = MatterQRCodeLayout.unpack(bytes)
        // The version comes first: a later version may lay out the remaining bits differently.
        guard fields.version == 0 else { throw .unsupportedVersion(fields.version) }
        guard fields.padding == 0 else { throw .nonZeroPadding(fields.padding) }
        guard let flow = MatterSetupPayload.CommissioningFlow(fieldValue: fields.commissioningFlow) else {
            throw .reservedCommissioningFlow(fields.commissioningFlow)
        }
        try validatePasscode(fields.passcode)
        try validateIdentifiers(vendorID: fields.vendorID, productID: fields.productID)

        let hasTLVExtension = bytes.count > MatterQRCodeLayout.fixedByteCount
        if hasTLVExtension {
            let firstByte = Int(bytes[MatterQRCodeLayout.fixedByteCount])
            // §5.1.3.1: the optional data is one anonymous TLV structure; control byte 0x15.
            guard firstByte == 0x15 else { throw .malformedTLVExtension(firstByte: firstByte) }
        }

        return MatterSetupPayload(
            source: .qrCode,
            version: fields.version,
            vendorID: fields.vendorID,
            productID: fields.productID,
            commissioningFlow: flow,
            rendezvousInformation: fields.rendezvousInformation,
            discriminator: fields.discriminator,
            discriminatorIsShort: false,
            passcode: fields.passcode,
            hasTLVExtension: hasTLVExtension
        )
    }

    /// Decodes an 11- or 21-digit manual pairing code (§5.1.4), ignoring `-` and ` ` separators as printed on
    /// labels (e.g. `3497-0112-332`).
    ///
    /// Layout, after removing separators: digit 1 = `vidPidPresent << 2 | shortDiscriminator >> 2`;
    /// digits 2–6 = `(shortDiscriminator & 3) << 14 | passcode & 0x3FFF`; digits 7–10 = `passcode >> 14`;
    /// for 21-digit codes, 5-digit vendor ID then 5-digit product ID; last digit = Verhoeff check digit.
    /// Rejected: other lengths, non-digits, a wrong check digit, leading digit 8 or 9 (reserved), a vid/pid flag
    /// that disagrees with the length, chunk values that overflow their bit fields, an invalid passcode (§5.1.6)
    /// and invalid vendor/product IDs.
    public static func parseManualCode(_ text: String) throws(MatterPayloadError) -> MatterSetupPayload {
        let input = try trimmedInput(text)
        var digits: [Int] = []
        digits.reserveCapacity(21)
        for (index, character) in input.enumerated() {
            if character == "-" || character == " " { continue }
            guard let ascii = character.asciiValue, character.unicodeScalars.count == 1, ascii >= 0x30, ascii <= 0x39
            else {
                throw .nonDigitCharacter(
                    position: index + 1,
                    character: MatterUntrustedText.escaped(String(character))
                )
            }
            digits.append(Int(ascii - 0x30))
        }
        guard digits.count == 11 || digits.count == 21 else {
            throw .invalidManualCodeLength(digitCount: digits.count)
        }

        let digitString = String(digits.map { Character(String($0)) })
        let withoutCheck = String(digitString.dropLast())
        guard Verhoeff.isValid(digitString) else {
            let expected = Verhoeff.checkDigit(for: withoutCheck).flatMap { $0.wholeNumberValue } ?? -1
            throw .checkDigitMismatch(expected: expected, found: digits[digits.count - 1])
        }

        let chunk1 = digits[0]
        guard chunk1 <= 7 else { throw .reservedLeadingDigit(chunk1) }
        let vidPidPresent = chunk1 >> 2 & 1 == 1
        guard vidPidPresent == (digits.count == 21) else {
            throw .vidPidFlagMismatch(flagSet: vidPidPresent, digitCount: digits.count)
        }

        let chunk2 = number(digits[1...5])
        guard chunk2 <= 0xFFFF else { throw .manualChunkOutOfRange(chunk: 2, value: chunk2, maximum: 0xFFFF) }
        let chunk3 = number(digits[6...9])
        guard chunk3 <= 0x1FFF else { throw .manualChunkOutOfRange(chunk: 3, value: chunk3, maximum: 0x1FFF) }

        let shortDiscriminator = (chunk1 & 0x3) << 2 | chunk2 >> 14
        let passcode = chunk3 << 14 | chunk2 & 0x3FFF
        try validatePasscode(passcode)

        var vendorID: Int?
        var productID: Int?
        if vidPidPresent {
            let vendor = number(digits[10...14])
            let product = number(digits[15...19])
            try validateIdentifiers(vendorID: vendor, productID: product)
            vendorID = vendor
            productID = product
        }

        return MatterSetupPayload(
            source: vidPidPresent ? .manualCode21 : .manualCode11,
            vendorID: vendorID,
            productID: productID,
            commissioningFlow: vidPidPresent ? .custom : .standard,
            discriminator: shortDiscriminator,
            discriminatorIsShort: true,
            passcode: passcode
        )
    }

    /// Whether `text` looks like a Matter payload at all, for dispatching between payload kinds: it starts with
    /// `MT:` (after surrounding whitespace), or it is 11 or 21 ASCII digits once `-` and ` ` are removed.
    /// A true result does not mean the payload is valid.
    public static func looksLikeMatter(_ text: String) -> Bool {
        guard text.utf8.count <= maximumInputLength else { return false }
        let input = trimmingASCIIWhitespace(text)
        if input.hasPrefix(qrCodePrefix) { return true }
        var digitCount = 0
        for byte in input.utf8 {
            switch byte {
            case 0x30...0x39: digitCount += 1
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return false
            }
        }
        return digitCount == 11 || digitCount == 21
    }

    /// Whether `passcode` may be used as a setup passcode (§5.1.6; connectedhomeip `IsValidSetupPIN`):
    /// 1...99999998, excluding 11111111, 22222222, ..., 88888888, 12345678 and 87654321.
    public static func isValidPasscode(_ passcode: Int) -> Bool {
        MatterPayloadError.PasscodeRule.violated(by: passcode) == nil
    }

    // MARK: - Shared checks (also used by the encoder)

    static func validatePasscode(_ passcode: Int) throws(MatterPayloadError) {
        if let rule = MatterPayloadError.PasscodeRule.violated(by: passcode) {
            throw .invalidPasscode(rule)
        }
    }

    /// Vendor ID 0 (unspecified) or 1...0xFFF4 (§2.5.2; 0xFFF5...0xFFFF are reserved); product ID 16 bits and
    /// not 0 unless the vendor ID is 0 too — connectedhomeip `CheckPayloadCommonConstraints`.
    static func validateIdentifiers(vendorID: Int, productID: Int) throws(MatterPayloadError) {
        guard vendorID >= 0 && vendorID <= 0xFFF4 else { throw .invalidVendorID(vendorID) }
        guard productID >= 0 && productID <= 0xFFFF else { throw .invalidProductID(productID, vendorID: vendorID) }
        guard productID != 0 || vendorID == 0 else { throw .invalidProductID(productID, vendorID: vendorID) }
    }

    // MARK: - Helpers

    private static func trimmedInput(_ text: String) throws(MatterPayloadError) -> Substring {
        let length = text.utf8.count
        guard length <= maximumInputLength else {
            throw .inputTooLong(length: length, limit: maximumInputLength)
        }
        let input = trimmingASCIIWhitespace(text)
        guard !input.isEmpty else { throw .empty }
        return input
    }

    private static func trimmingASCIIWhitespace(_ text: String) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let start = text.firstIndex(where: { !isSpace($0) }),
            let end = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[start...end]
    }

    private static func number(_ digits: ArraySlice<Int>) -> Int {
        digits.reduce(0) { $0 * 10 + $1 }
    }
}
