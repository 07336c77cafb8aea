import Testing

@testable import Pairing

@Suite("Matter manual pairing code decoding (Matter Core spec §5.1.4)")
struct MatterManualCodeTests {
    /// A manual pairing code and what it must decode to; checked by `MatterPayloadParser` and by a separate
    /// digit-level decoder written for this review.
    struct Vector: Sendable, CustomTestStringConvertible {
        var code: String
        var shortDiscriminator: Int
        var passcode: Int
        var vendorID: Int?
        var productID: Int?
        var origin: String

        var testDescription: String { code }
    }

    static let knownGood: [Vector] = [
        Vector(
            code: "34970112332",
            shortDiscriminator: 15,
            passcode: 20_202_021,
            origin: "run_python_setup_payload_test.py; chip-all-clusters-app boot log"
        ),
        Vector(
            code: "3497-0112-332",
            shortDiscriminator: 15,
            passcode: 20_202_021,
            origin: "same, label separators"
        ),
        Vector(
            code: "3497 011 2332",
            shortDiscriminator: 15,
            passcode: 20_202_021,
            origin: "same, space separators"
        ),
        Vector(
            code: "32140830464",
            shortDiscriminator: 13,
            passcode: 49_910_688,
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            code: "00210433428",
            shortDiscriminator: 0,
            passcode: 54_757_432,
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            code: "00204800002",
            shortDiscriminator: 0,
            passcode: 2048,
            origin: "TestSetupPayload.cpp"
        ),
        Vector(
            code: "24393623965",
            shortDiscriminator: 10,
            passcode: 39_267_232,
            origin: "shubhamdp/esp_ota README"
        ),
        Vector(
            code: "702871264504387000187",
            shortDiscriminator: 12,
            passcode: 43_338_551,
            vendorID: 4387,
            productID: 18,
            origin: "run_python_setup_payload_test.py"
        ),
        Vector(
            code: "745492075300001000013",
            shortDiscriminator: 14,
            passcode: 12_349_876,
            vendorID: 1,
            productID: 1,
            origin: "run_python_setup_payload_test.py"
        ),
        Vector(
            code: "619156140465523329207",
            shortDiscriminator: 9,
            passcode: 23_005_908,
            vendorID: 65523,
            productID: 32920,
            origin: "run_python_setup_payload_test.py"
        ),
        Vector(
            code: "402104334209029041311",
            shortDiscriminator: 0,
            passcode: 54_757_432,
            vendorID: 9029,
            productID: 4131,
            origin: "run_python_setup_payload_test.py"
        ),
        Vector(
            code: "403732495800069000166",
            shortDiscriminator: 0,
            passcode: 81_235_604,
            vendorID: 69,
            productID: 16,
            origin: "run_python_setup_payload_test.py"
        ),
        Vector(
            code: "529276236304562000322",
            shortDiscriminator: 5,
            passcode: 38_728_284,
            vendorID: 4562,
            productID: 32,
            origin: "TestManualCode.cpp \"52927623630456200032\" + Verhoeff digit"
        ),
        Vector(
            code: "400001000000001000015",
            shortDiscriminator: 0,
            passcode: 1,
            vendorID: 1,
            productID: 1,
            origin: "TestManualCode.cpp \"40000100000000100001\" + Verhoeff digit"
        ),
    ]

    @Test("known-good manual codes decode to the published fields", arguments: knownGood)
    func decodesKnownGoodVectors(_ vector: Vector) throws {
        let payload = try MatterPayloadParser.parseManualCode(vector.code)
        let isLong = vector.vendorID != nil
        #expect(payload.source == (isLong ? .manualCode21 : .manualCode11))
        #expect(payload.version == nil)
        #expect(payload.vendorID == vector.vendorID)
        #expect(payload.productID == vector.productID)
        #expect(payload.commissioningFlow == (isLong ? .custom : .standard))
        #expect(payload.rendezvousInformation == nil)
        #expect(payload.rendezvousMethods == nil)
        #expect(payload.discriminator == vector.shortDiscriminator)
        #expect(payload.discriminatorIsShort)
        #expect(payload.passcode == vector.passcode)
        #expect(payload.hasTLVExtension == false)
    }

    @Test("re-encoding a decoded manual code gives the same digits", arguments: knownGood)
    func reencodesToSameDigits(_ vector: Vector) throws {
        let payload = try MatterPayloadParser.parseManualCode(vector.code)
        let digitsOnly = vector.code.filter { $0 != "-" && $0 != " " }
        #expect(try payload.manualCodeString() == digitsOnly)
    }

    @Test(
        "malformed manual codes are rejected with the precise reason",
        arguments: [
            ("", MatterPayloadError.empty),
            ("  \n", .empty),
            ("3497011233", .invalidManualCodeLength(digitCount: 10)),
            ("349701123320", .invalidManualCodeLength(digitCount: 12)),
            ("---", .invalidManualCodeLength(digitCount: 0)),
            ("3497O112332", .nonDigitCharacter(position: 5, character: "O")),
            ("24184.21964", .nonDigitCharacter(position: 6, character: ".")),
            ("3497_0112_332", .nonDigitCharacter(position: 5, character: "_")),
            ("3497\u{0663}112332", .nonDigitCharacter(position: 5, character: "\\u{0663}")),
            ("34970112333", .checkDigitMismatch(expected: 2, found: 3)),
            ("34970112323", .checkDigitMismatch(expected: 1, found: 3)),  // Last two digits swapped.
            ("02684354589", .checkDigitMismatch(expected: 4, found: 9)),  // TestManualCode.cpp "wrong check digit".
            ("84970112331", .reservedLeadingDigit(8)),
            ("94970112333", .reservedLeadingDigit(9)),
            ("74970112334", .vidPidFlagMismatch(flagSet: true, digitCount: 11)),
            ("234567891234567856105", .vidPidFlagMismatch(flagSet: false, digitCount: 21)),
            ("09999900009", .manualChunkOutOfRange(chunk: 2, value: 99999, maximum: 65535)),
            ("00000199998", .manualChunkOutOfRange(chunk: 3, value: 9999, maximum: 8191)),
        ] as [(MatterTestInput, MatterPayloadError)]
    )
    func rejectsMalformedCodes(_ input: MatterTestInput, _ expected: MatterPayloadError) {
        #expect(throws: expected) { try MatterPayloadParser.parseManualCode(input.text) }
    }

    @Test(
        "manual codes with an invalid passcode or identifier are rejected with the rule that failed",
        arguments: [
            ("23276800006", MatterPayloadError.invalidPasscode(.zero)),  // TestManualCode.cpp "no pin code".
            ("00275906787", .invalidPasscode(.repeatedDigits)),  // 11111111
            ("00852607537", .invalidPasscode(.sequence)),  // 12345678
            ("01630553497", .invalidPasscode(.sequence)),  // 87654321
            ("00844761037", .invalidPasscode(.aboveMaximum)),  // 99999999
            ("23610875350", .invalidPasscode(.aboveMaximum)),  // 123456780, connectedhomeip's default.
            ("01120767810", .invalidPasscode(.aboveMaximum)),  // 111111111, TestSetupPayload.cpp.
            ("749701123365525000018", .invalidVendorID(0xFFF5)),
            ("749701123399999000016", .invalidVendorID(99999)),
            ("749701123365521999995", .invalidProductID(99999, vendorID: 65521)),
            ("749701123365521000006", .invalidProductID(0, vendorID: 65521)),
        ]
    )
    func rejectsInvalidFields(_ text: String, _ expected: MatterPayloadError) {
        #expect(throws: expected) { try MatterPayloadParser.parseManualCode(text) }
    }

    @Test("a manual-code payload cannot become a QR code, which needs the 12-bit discriminator")
    func manualPayloadCannotBeQREncoded() throws {
        let payload = try MatterPayloadParser.parseManualCode("34970112332")
        #expect(throws: MatterPayloadError.shortDiscriminatorInQRCode) { try payload.qrCodeString() }
    }
}
