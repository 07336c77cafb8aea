import Foundation
import Testing

@testable import Pairing

@Suite("Matter payload encoding, passcode rules, dispatch and error messages")
struct MatterRoundTripTests {
    typealias Flow = MatterSetupPayload.CommissioningFlow

    static let flows: [Flow] = [.standard, .userIntent, .custom]
    static let discriminators = [0, 1, 255, 256, 2047, 2048, 3840, 4095]
    static let passcodes = [1, 2, 2048, 20_202_021, 12_345_679, 87_654_320, 99_999_998, 0x3FFF, 0x4000]

    @Test("QR encode → decode returns the same payload", arguments: discriminators, passcodes)
    func qrRoundTrip(discriminator: Int, passcode: Int) throws {
        let flow = Self.flows[(discriminator + passcode) % 3]
        let payload = MatterSetupPayload(
            source: .qrCode,
            version: 0,
            vendorID: 0xFFF1,
            productID: 0x8000 | discriminator,
            commissioningFlow: flow,
            rendezvousInformation: passcode & 0xFF,
            discriminator: discriminator,
            discriminatorIsShort: false,
            passcode: passcode
        )
        let text = try payload.qrCodeString()
        #expect(text.hasPrefix("MT:") && text.count == 22)
        #expect(try MatterPayloadParser.parseQRCode(text) == payload)
    }

    @Test("manual encode → decode returns the same short discriminator and passcode, 11 and 21 digits")
    func manualRoundTrip() throws {
        for shortDiscriminator in 0...15 {
            for passcode in Self.passcodes {
                let short = MatterSetupPayload(
                    source: .manualCode11,
                    discriminator: shortDiscriminator,
                    discriminatorIsShort: true,
                    passcode: passcode
                )
                let shortCode = try short.manualCodeString()
                #expect(shortCode.count == 11)
                #expect(try MatterPayloadParser.parseManualCode(shortCode) == short)

                let long = MatterSetupPayload(
                    source: .manualCode21,
                    vendorID: 0xFFF4,
                    productID: 0xFFFF,
                    commissioningFlow: .custom,
                    discriminator: shortDiscriminator,
                    discriminatorIsShort: true,
                    passcode: passcode
                )
                let longCode = try long.manualCodeString()
                #expect(longCode.count == 21)
                #expect(try MatterPayloadParser.parseManualCode(longCode) == long)
            }
        }
    }

    @Test("randomized QR payloads survive QR and manual round-trips")
    func randomizedRoundTrips() throws {
        var random = MatterTestRandom(seed: 0x4D54)
        for _ in 0..<500 {
            var passcode = random.next(in: 1...99_999_998)
            while !MatterPayloadParser.isValidPasscode(passcode) { passcode = random.next(in: 1...99_999_998) }
            let vendorID = random.next(in: 0...0xFFF4)
            let productID = vendorID == 0 ? random.next(in: 0...0xFFFF) : random.next(in: 1...0xFFFF)
            let payload = MatterSetupPayload(
                source: .qrCode,
                version: 0,
                vendorID: vendorID,
                productID: productID,
                commissioningFlow: Self.flows[random.next(in: 0...2)],
                rendezvousInformation: random.next(in: 0...255),
                discriminator: random.next(in: 0...4095),
                discriminatorIsShort: false,
                passcode: passcode
            )

            let decoded = try MatterPayloadParser.parseQRCode(try payload.qrCodeString())
            #expect(decoded == payload)

            let manual = try MatterPayloadParser.parseManualCode(try payload.manualCodeString())
            #expect(manual.passcode == passcode)
            #expect(manual.discriminator == payload.discriminator >> 8)
            if payload.commissioningFlow == .standard {
                #expect(manual.source == .manualCode11 && manual.vendorID == nil)
            } else {
                #expect(manual.source == .manualCode21 && manual.vendorID == vendorID && manual.productID == productID)
            }
        }
    }

    @Test(
        "the encoders refuse values the parser would reject",
        arguments: [
            (
                MatterSetupPayload.qr(discriminator: 4096),
                MatterPayloadError.invalidDiscriminator(value: 4096, isShort: false)
            ),
            (.qr(discriminator: -1), .invalidDiscriminator(value: -1, isShort: false)),
            (.qr(passcode: 11_111_111), .invalidPasscode(.repeatedDigits)),
            (.qr(passcode: -20), .invalidPasscode(.negative)),
            (.qr(passcode: 0x800_0000), .invalidPasscode(.aboveMaximum)),
            (.qr(vendorID: 0xFFF5), .invalidVendorID(0xFFF5)),
            (.qr(vendorID: 0x10000), .invalidVendorID(0x10000)),
            (.qr(productID: 0), .invalidProductID(0, vendorID: 0xFFF1)),
            (.qr(rendezvous: 256), .invalidRendezvousInformation(256)),
            (.qr(rendezvous: nil), .missingField(.rendezvousInformation)),
            (.qr(version: 1), .unsupportedVersion(1)),
        ]
    )
    func qrEncoderRefusesInvalidValues(_ payload: MatterSetupPayload, _ expected: MatterPayloadError) {
        #expect(throws: expected) { try payload.qrCodeString() }
    }

    @Test("the manual encoder needs a vendor and product ID for non-standard flows and a 4-bit short discriminator")
    func manualEncoderRefusesInvalidValues() {
        var custom = MatterSetupPayload.qr()
        custom.commissioningFlow = .custom
        custom.vendorID = nil
        #expect(throws: MatterPayloadError.missingField(.vendorID)) { try custom.manualCodeString() }
        custom.vendorID = 0xFFF1
        custom.productID = nil
        #expect(throws: MatterPayloadError.missingField(.productID)) { try custom.manualCodeString() }

        let short = MatterSetupPayload(
            source: .manualCode11,
            discriminator: 16,
            discriminatorIsShort: true,
            passcode: 20_202_021
        )
        #expect(throws: MatterPayloadError.invalidDiscriminator(value: 16, isShort: true)) {
            try short.manualCodeString()
        }
    }

    @Test(
        "passcodes follow §5.1.6",
        arguments: [
            (0, MatterPayloadError.PasscodeRule.zero), (-1, .negative), (99_999_999, .aboveMaximum),
            (100_000_000, .aboveMaximum), (0x7FF_FFFF, .aboveMaximum), (11_111_111, .repeatedDigits),
            (22_222_222, .repeatedDigits), (33_333_333, .repeatedDigits), (44_444_444, .repeatedDigits),
            (55_555_555, .repeatedDigits), (66_666_666, .repeatedDigits), (77_777_777, .repeatedDigits),
            (88_888_888, .repeatedDigits), (12_345_678, .sequence), (87_654_321, .sequence),
        ]
    )
    func invalidPasscodes(_ passcode: Int, _ rule: MatterPayloadError.PasscodeRule) {
        #expect(MatterPayloadParser.isValidPasscode(passcode) == false)
        #expect(MatterPayloadError.PasscodeRule.violated(by: passcode) == rule)
    }

    @Test(
        "valid passcodes are accepted",
        arguments: [1, 2, 2048, 1_111_111, 11_111_112, 12_345_679, 20_202_021, 22_222_221, 87_654_320, 99_999_998]
    )
    func validPasscodes(_ passcode: Int) {
        #expect(MatterPayloadParser.isValidPasscode(passcode))
        #expect(MatterPayloadError.PasscodeRule.violated(by: passcode) == nil)
    }

    @Test(
        "looksLikeMatter recognises both forms and nothing else",
        arguments: [
            ("MT:-24J042C00KA0648G00", true), ("  MT:anything\n", true), ("MT:", true), ("34970112332", true),
            ("3497-0112-332", true), ("3497 011 2332", true), ("745492075300001000013", true),
            ("74549-20753-00001-00001-3", true), ("mt:-24J042C00KA0648G00", false), ("", false),
            ("3497011233", false), ("349701123320", false), ("+34970112332", false), ("3497.0112.332", false),
            ("https://smartapp.tuya.com/s/p?p=abc&uuid=def&v=2.0", false), ("86091234567890", false),
            ("３４９７０１１２３３２", false),
        ] as [(MatterTestInput, Bool)]
    )
    func looksLikeMatter(_ input: MatterTestInput, _ expected: Bool) {
        #expect(MatterPayloadParser.looksLikeMatter(input.text) == expected)
    }

    @Test("rendezvous bits map to names lowest bit first")
    func rendezvousNames() {
        #expect(MatterSetupPayload.rendezvousMethodNames(forMask: 0) == [])
        #expect(MatterSetupPayload.rendezvousMethodNames(forMask: 0x07) == ["soft-ap", "ble", "on-network"])
        #expect(MatterSetupPayload.rendezvousMethodNames(forMask: 0x0A) == ["ble", "wifi-paf"])
        #expect(MatterSetupPayload.rendezvousMethodNames(forMask: 0x30) == ["nfc", "thread"])
        #expect(MatterSetupPayload.rendezvousMethodNames(forMask: 0xC0) == ["reserved-bit-6", "reserved-bit-7"])
    }

    @Test("payloads encode to JSON with the documented raw values and decode back")
    func codableRoundTrip() throws {
        let payload = try MatterPayloadParser.parseQRCode("MT:A3L90ARR15G6N57Y900")
        let data = try JSONEncoder().encode(payload)
        let json = try #require(String(data: data, encoding: .utf8))
        #expect(json.contains("\"source\":\"qr\""))
        #expect(json.contains("\"commissioningFlow\":\"user-intent\""))
        #expect(try JSONDecoder().decode(MatterSetupPayload.self, from: data) == payload)

        let manual = try MatterPayloadParser.parseManualCode("745492075300001000013")
        let manualJSON = try #require(String(data: try JSONEncoder().encode(manual), encoding: .utf8))
        #expect(manualJSON.contains("\"source\":\"manual-21\""))
    }

    @Test(
        "error messages never echo raw control, bidi or long input",
        arguments: [
            "MT:M5L90MP5\u{202E}0K64J00000", "MT:\n\u{1B}[31mEVIL", "<script>alert(1)</script>",
            MatterTestInput(String(repeating: "X", count: 4000)), "MT:M5L90\u{0}MP500K64J00000", "3497\u{202E}0112332",
            "34970112332\u{1B}[2J",
        ] as [MatterTestInput]
    )
    func errorMessagesAreEscaped(_ input: MatterTestInput) {
        let qrError = #expect(throws: MatterPayloadError.self) { try MatterPayloadParser.parseQRCode(input.text) }
        let manualError = #expect(throws: MatterPayloadError.self) {
            try MatterPayloadParser.parseManualCode(input.text)
        }
        for error in [qrError, manualError] {
            let message = error?.description ?? ""
            #expect(message.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "\(message)")
            #expect(!message.contains("alert(1)"))
            #expect(!message.contains("EVIL"))
            #expect(!message.contains("XXXXXXXXXXXXX"))
            #expect(message.count < 300)
        }
    }

    @Test("every error has a one-sentence description ending in a full stop")
    func descriptionsAreSentences() {
        let errors: [MatterPayloadError] = [
            .empty, .inputTooLong(length: 5000, limit: 4096), .badPrefix(found: "AT:"), .badPrefix(found: "mt:"),
            .multiplePayloads(count: 2), .invalidBase38Character(position: 4, character: "a"),
            .invalidBase38Length(characterCount: 18), .base38ChunkOverflow(position: 4, value: 300, byteCount: 1),
            .payloadTooShort(byteCount: 6), .unsupportedVersion(1), .nonZeroPadding(2),
            .reservedCommissioningFlow(3), .invalidRendezvousInformation(256), .malformedTLVExtension(firstByte: 0),
            .tlvExtensionNotEncodable, .invalidManualCodeLength(digitCount: 10),
            .nonDigitCharacter(position: 5, character: "O"), .checkDigitMismatch(expected: 2, found: 3),
            .reservedLeadingDigit(8), .vidPidFlagMismatch(flagSet: true, digitCount: 11),
            .vidPidFlagMismatch(flagSet: false, digitCount: 21),
            .manualChunkOutOfRange(chunk: 2, value: 99999, maximum: 65535),
            .manualChunkOutOfRange(chunk: 3, value: 9999, maximum: 8191),
            .invalidPasscode(.zero), .invalidPasscode(.negative), .invalidPasscode(.aboveMaximum),
            .invalidPasscode(.repeatedDigits), .invalidPasscode(.sequence),
            .invalidDiscriminator(value: 4096, isShort: false), .invalidDiscriminator(value: 16, isShort: true),
            .shortDiscriminatorInQRCode, .invalidVendorID(0xFFF5), .invalidProductID(0, vendorID: 1),
            .invalidProductID(70000, vendorID: 1), .missingField(.vendorID),
        ]
        for error in errors {
            let text = error.description
            #expect(text.first?.isUppercase == true, "\(text)")
            #expect(text.hasSuffix("."), "\(text)")
            #expect(text.dropLast().contains(". ") == false, "more than one sentence: \(text)")
        }
        #expect(MatterPayloadError.badPrefix(found: "mt:").description.contains("upper-case"))
    }

    @Test(
        "a rejected passcode never appears in the error message",
        arguments: [
            ("MT:M5L90MP500W-GT68D20", "111111111"), ("MT:-24J042C00WKS18TV20", "134217727"),
            ("23610875350", "123456780"), ("01120767810", "111111111"),
        ]
    )
    func passcodeNotEchoed(_ text: String, _ passcode: String) {
        let error = #expect(throws: MatterPayloadError.self) {
            text.hasPrefix("MT:")
                ? try MatterPayloadParser.parseQRCode(text) : try MatterPayloadParser.parseManualCode(text)
        }
        #expect(error?.description.contains(passcode) == false)
        #expect(error == .invalidPasscode(.aboveMaximum))
    }
}

extension MatterSetupPayload {
    /// A valid QR payload (the chip-all-clusters-app one) with one field overridden.
    fileprivate static func qr(
        version: Int = 0,
        vendorID: Int = 0xFFF1,
        productID: Int = 0x8001,
        rendezvous: Int? = 0x02,
        discriminator: Int = 3840,
        passcode: Int = 20_202_021
    ) -> MatterSetupPayload {
        MatterSetupPayload(
            source: .qrCode,
            version: version,
            vendorID: vendorID,
            productID: productID,
            rendezvousInformation: rendezvous,
            discriminator: discriminator,
            discriminatorIsShort: false,
            passcode: passcode
        )
    }
}
