/// Encoding a payload back into its textual forms: the inverse of ``MatterPayloadParser``. Both encoders refuse
/// values the parser would reject, so whatever they produce parses back to an equal payload.
extension MatterSetupPayload {
    /// The QR payload text `MT:` + base38 of the 88-bit fixed part (Matter Core spec §5.1.3).
    ///
    /// Needs the 12-bit discriminator (not a short one), ``rendezvousInformation`` and version 0 (nil counts as 0);
    /// a nil vendor or product ID is written as 0 ("not specified"). Payloads with `hasTLVExtension` are refused
    /// because the TLV bytes were not kept.
    public func qrCodeString() throws(MatterPayloadError) -> String {
        let version = version ?? 0
        guard version == 0 else { throw .unsupportedVersion(version) }
        guard !hasTLVExtension else { throw .tlvExtensionNotEncodable }
        guard !discriminatorIsShort else { throw .shortDiscriminatorInQRCode }
        guard (0...0xFFF).contains(discriminator) else {
            throw .invalidDiscriminator(value: discriminator, isShort: false)
        }
        guard let rendezvous = rendezvousInformation else { throw .missingField(.rendezvousInformation) }
        guard (0...0xFF).contains(rendezvous) else { throw .invalidRendezvousInformation(rendezvous) }
        let vendorID = vendorID ?? 0
        let productID = productID ?? 0
        try MatterPayloadParser.validateIdentifiers(vendorID: vendorID, productID: productID)
        try MatterPayloadParser.validatePasscode(passcode)

        let fields = MatterQRCodeLayout.Fields(
            version: version,
            vendorID: vendorID,
            productID: productID,
            commissioningFlow: commissioningFlow.fieldValue,
            rendezvousInformation: rendezvous,
            discriminator: discriminator,
            passcode: passcode,
            padding: 0
        )
        return MatterPayloadParser.qrCodePrefix + Base38.encode(MatterQRCodeLayout.pack(fields))
    }

    /// The manual pairing code digits, without separators (Matter Core spec §5.1.4).
    ///
    /// 21 digits (with vendor and product ID) when the commissioning flow is not `.standard` or the payload came
    /// from a 21-digit code, as connectedhomeip's generator does; otherwise 11 digits. Uses the short
    /// discriminator (the top 4 bits of a 12-bit one).
    public func manualCodeString() throws(MatterPayloadError) -> String {
        let range = discriminatorIsShort ? 0...0xF : 0...0xFFF
        guard range.contains(discriminator) else {
            throw .invalidDiscriminator(value: discriminator, isShort: discriminatorIsShort)
        }
        try MatterPayloadParser.validatePasscode(passcode)

        let includesVendorAndProduct = commissioningFlow != .standard || source == .manualCode21
        let short = shortDiscriminator
        let chunk1 = (includesVendorAndProduct ? 1 : 0) << 2 | short >> 2
        let chunk2 = (short & 0x3) << 14 | passcode & 0x3FFF
        let chunk3 = passcode >> 14
        var digits = String(chunk1) + zeroPadded(chunk2, width: 5) + zeroPadded(chunk3, width: 4)
        if includesVendorAndProduct {
            guard let vendorID else { throw .missingField(.vendorID) }
            guard let productID else { throw .missingField(.productID) }
            try MatterPayloadParser.validateIdentifiers(vendorID: vendorID, productID: productID)
            digits += zeroPadded(vendorID, width: 5) + zeroPadded(productID, width: 5)
        }
        guard let check = Verhoeff.checkDigit(for: digits) else {
            preconditionFailure("manual code digits are ASCII digits by construction")
        }
        digits.append(check)
        return digits
    }

    private func zeroPadded(_ value: Int, width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
