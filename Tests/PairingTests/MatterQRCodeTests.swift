import Foundation
import Testing

@testable import Pairing

@Suite("Matter QR code decoding (Matter Core spec §5.1.3)")
struct MatterQRCodeTests {
    /// A QR payload and what it must decode to. Every vector was decoded by `MatterPayloadParser` and, independently,
    /// by a separate bit-level decoder written for this review (LSB-first unpacking of the base38 bytes).
    struct Vector: Sendable, CustomTestStringConvertible {
        var qr: String
        var vendorID: Int
        var productID: Int
        var flow: MatterSetupPayload.CommissioningFlow
        var rendezvous: Int
        var discriminator: Int
        var passcode: Int
        /// The manual pairing code the same device prints, when the source gives one.
        var manualCode: String?
        var origin: String

        var testDescription: String { qr }
    }

    static let knownGood: [Vector] = [
        Vector(
            qr: "MT:-24J042C00KA0648G00",
            vendorID: 0xFFF1,
            productID: 0x8001,
            flow: .standard,
            rendezvous: 0x02,
            discriminator: 3840,
            passcode: 20_202_021,
            manualCode: "34970112332",
            origin: "chip-all-clusters-app boot log (VID 0xFFF1, PID 0x8001 = 32769)"
        ),
        Vector(
            qr: "MT:00000CQM00KA0648G00",
            vendorID: 0,
            productID: 0,
            flow: .standard,
            rendezvous: 0x04,
            discriminator: 3840,
            passcode: 20_202_021,
            manualCode: "34970112332",
            origin: "connectedhomeip src/setup_payload/python/tests/test_matter_setup_payload.py"
        ),
        Vector(
            qr: "MT:-8VJ0OMV172PX813210",
            vendorID: 0x1317,
            productID: 0x0002,
            flow: .standard,
            rendezvous: 0x02,
            discriminator: 3431,
            passcode: 49_910_688,
            manualCode: "32140830464",
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            qr: "MT:U9VJ0OMV172PX813210",
            vendorID: 4891,
            productID: 2,
            flow: .standard,
            rendezvous: 0x02,
            discriminator: 3431,
            passcode: 49_910_688,
            manualCode: "32140830464",
            origin: "connectedhomeip src/setup_payload/tests/run_python_setup_payload_test.py"
        ),
        Vector(
            qr: "MT:0A.T0RTM00Y0OJ0.510",
            vendorID: 0x2345,
            productID: 0x1023,
            flow: .standard,
            rendezvous: 0x04,
            discriminator: 80,
            passcode: 54_757_432,
            manualCode: "00210433428",
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            qr: "MT:0A.T0P--00Y0OJ0.510",
            vendorID: 9029,
            productID: 4131,
            flow: .custom,
            rendezvous: 0x06,
            discriminator: 80,
            passcode: 54_757_432,
            manualCode: "402104334209029041311",
            origin: "run_python_setup_payload_test.py"
        ),
        Vector(
            qr: "MT:KSNK4SIC13-JPR4UY00",
            vendorID: 0x1123,
            productID: 0x0012,
            flow: .custom,
            rendezvous: 0x04,
            discriminator: 3091,
            passcode: 43_338_551,
            manualCode: "702871264504387000187",
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            qr: "MT:KSNK4M5113-JPR4UY00",
            vendorID: 0x1123,
            productID: 0x0012,
            flow: .custom,
            rendezvous: 0x02,
            discriminator: 3091,
            passcode: 43_338_551,
            manualCode: "702871264504387000187",
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            qr: "MT:A3L90ARR15G6N57Y900",
            vendorID: 1,
            productID: 1,
            flow: .userIntent,
            rendezvous: 0x04,
            discriminator: 3781,
            passcode: 12_349_876,
            manualCode: "745492075300001000013",
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            qr: "MT:EPX0482F26DAVY09R10",
            vendorID: 0x45,
            productID: 0x10,
            flow: .userIntent,
            rendezvous: 0x07,
            discriminator: 174,
            passcode: 81_235_604,
            manualCode: "403732495800069000166",
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            qr: "MT:MZWA6G6026O2XP0II00",
            vendorID: 0xFFF3,
            productID: 0x8098,
            flow: .custom,
            rendezvous: 0x04,
            discriminator: 2310,
            passcode: 23_005_908,
            manualCode: "619156140465523329207",
            origin: "test_matter_setup_payload.py"
        ),
        Vector(
            qr: "MT:M5L90MP500K64J00000",
            vendorID: 12,
            productID: 1,
            flow: .standard,
            rendezvous: 0x01,
            discriminator: 128,
            passcode: 2048,
            manualCode: "00204800002",
            origin: "connectedhomeip tests/TestHelpers.h kDefaultPayloadQRCode; TestSetupPayload.cpp"
        ),
        Vector(
            qr: "MT:W0GU2OTB00KA0648G00",
            vendorID: 0x235A,
            productID: 0x4E4B,
            flow: .standard,
            rendezvous: 0x02,
            discriminator: 3840,
            passcode: 20_202_021,
            manualCode: nil,
            origin: "connectedhomeip src/controller/java/tests/.../QRCodeTest.kt"
        ),
        Vector(
            qr: "MT:634J0CEK01938S2KV00",
            vendorID: 65522,
            productID: 32769,
            flow: .standard,
            rendezvous: 0x02,
            discriminator: 2777,
            passcode: 39_267_232,
            manualCode: "24393623965",
            origin: "shubhamdp/esp_ota esp32_test_devices/README.md"
        ),
    ]

    @Test("known-good QR payloads decode to the published fields", arguments: knownGood)
    func decodesKnownGoodVectors(_ vector: Vector) throws {
        let payload = try MatterPayloadParser.parseQRCode(vector.qr)
        #expect(payload.source == .qrCode)
        #expect(payload.version == 0)
        #expect(payload.vendorID == vector.vendorID)
        #expect(payload.productID == vector.productID)
        #expect(payload.commissioningFlow == vector.flow)
        #expect(payload.rendezvousInformation == vector.rendezvous)
        #expect(payload.rendezvousMethods == MatterSetupPayload.rendezvousMethodNames(forMask: vector.rendezvous))
        #expect(payload.discriminator == vector.discriminator)
        #expect(payload.discriminatorIsShort == false)
        #expect(payload.passcode == vector.passcode)
        #expect(payload.hasTLVExtension == false)
    }

    @Test("encoding the published fields reproduces the published QR text", arguments: knownGood)
    func encodesKnownGoodVectors(_ vector: Vector) throws {
        let payload = MatterSetupPayload(
            source: .qrCode,
            version: 0,
            vendorID: vector.vendorID,
            productID: vector.productID,
            commissioningFlow: vector.flow,
            rendezvousInformation: vector.rendezvous,
            discriminator: vector.discriminator,
            discriminatorIsShort: false,
            passcode: vector.passcode
        )
        #expect(try payload.qrCodeString() == vector.qr)
    }

    @Test(
        "a QR payload's manual code matches the one the same source prints",
        arguments: knownGood.filter { $0.manualCode != nil }
    )
    func qrPayloadProducesPublishedManualCode(_ vector: Vector) throws {
        let payload = try MatterPayloadParser.parseQRCode(vector.qr)
        #expect(try payload.manualCodeString() == vector.manualCode)
        let manual = try MatterPayloadParser.parseManualCode(try #require(vector.manualCode))
        #expect(manual.passcode == payload.passcode)
        #expect(manual.discriminator == payload.shortDiscriminator)
    }

    @Test("the brief's example decodes with product 0x8001, BLE only")
    func allClustersAppExampleDecodesAsBLEOnly() throws {
        let payload = try MatterPayloadParser.parseQRCode("MT:-24J042C00KA0648G00")
        #expect(payload.rendezvousMethods == ["ble"])
        #expect(payload.productID == 0x8001)
        #expect(payload.shortDiscriminator == 15)
    }

    @Test("the fixed part packs bit for bit as connectedhomeip's TestPayloadByteArrayRep expects")
    func packsDefaultPayloadBitsLikeConnectedhomeip() throws {
        // Fields from the most significant end: padding, passcode, discriminator, rendezvous, flow, PID, VID, version.
        let expected =
            " 0000 000000000000000100000000000 000010000000 00000001 00 0000000000000001 0000000000001100 000"
        let bytes = try Base38.decode("M5L90MP500K64J00000")
        let bits = bytes.reversed().map { byte in
            String(repeating: "0", count: 8 - String(byte, radix: 2).count) + String(byte, radix: 2)
        }.joined()
        #expect(bits == expected.replacingOccurrences(of: " ", with: ""))
        let packed = MatterQRCodeLayout.pack(
            .init(vendorID: 12, productID: 1, rendezvousInformation: 1, discriminator: 128, passcode: 2048)
        )
        #expect(packed == bytes)
    }

    @Test("trailing TLV data is reported, not decoded")
    func reportsTLVExtension() throws {
        // connectedhomeip QRCodeTest.kt testQRCodeWithOptionalData: serial "123456789" plus two vendor tags.
        let text = "MT:M5L90MP500K64J0A33P0SET70.QT52B.E23-WZE0WISA0DK5N1K8SQ1RYCU1O0"
        let payload = try MatterPayloadParser.parseQRCode(text)
        #expect(payload.hasTLVExtension)
        #expect(payload.vendorID == 12 && payload.productID == 1)
        #expect(payload.discriminator == 128 && payload.passcode == 2048)
        #expect(throws: MatterPayloadError.tlvExtensionNotEncodable) { try payload.qrCodeString() }
    }

    @Test("surrounding whitespace from scanners is ignored")
    func ignoresSurroundingWhitespace() throws {
        let payload = try MatterPayloadParser.parseQRCode("  MT:M5L90MP500K64J00000\r\n")
        #expect(payload.vendorID == 12)
    }

    @Test(
        "malformed QR payloads are rejected with the precise reason",
        arguments: [
            ("", MatterPayloadError.empty),
            (" \t\r\n", .empty),
            ("AT:M5L90MP500K64J00000", .badPrefix(found: "AT:M5L90...")),
            ("mt:M5L90MP500K64J00000", .badPrefix(found: "mt:M5L90...")),
            ("%MT:M5L90MP500K64J00000", .badPrefix(found: "%MT:M5L9...")),
            ("MT:", .payloadTooShort(byteCount: 0)),
            ("MT:M5L90MP500", .payloadTooShort(byteCount: 6)),
            ("MT:M5L90MP500K64J0000", .invalidBase38Length(characterCount: 18)),
            ("MT:M5L90MP5 0K64J00000", .invalidBase38Character(position: 12, character: " ")),
            ("MT:m5L90MP500K64J00000", .invalidBase38Character(position: 4, character: "m")),
            ("MT:M5L90MP500K64J0000\u{202E}", .invalidBase38Character(position: 22, character: "\\u{202E}")),
            ("MT:QLS18MP500K64J00000", .base38ChunkOverflow(position: 4, value: 0x100_0000, byteCount: 3)),
            ("MT:M5L90MP500K64J0OE71", .base38ChunkOverflow(position: 19, value: 0x1_0000, byteCount: 2)),
            (
                "MT:M5L90MP500K64J00000*M5L90U.D010K4J00000*M5L900CM02IX4J00000*M5L908OU03-85J00000",
                .multiplePayloads(count: 4)
            ),
        ] as [(MatterTestInput, MatterPayloadError)]
    )
    func rejectsMalformedText(_ input: MatterTestInput, _ expected: MatterPayloadError) {
        #expect(throws: expected) { try MatterPayloadParser.parseQRCode(input.text) }
    }

    /// Structurally well-formed payloads whose fields break a rule; built independently (Python bit packer) from
    /// `MT:-24J042C00KA0648G00` with one field changed.
    @Test(
        "QR payloads with an invalid field are rejected with the rule that failed",
        arguments: [
            ("MT:.24J042C00KA0648G00", MatterPayloadError.unsupportedVersion(1)),
            ("MT:534J042C00KA0648G00", .unsupportedVersion(7)),
            ("MT:-24J042C00KA0640A30", .nonZeroPadding(1)),
            ("MT:-24J042C00KA064K4N0", .nonZeroPadding(8)),
            ("MT:-24J0UBG00KA0648G00", .reservedCommissioningFlow(3)),
            ("MT:-24J042C00OC0000000", .invalidPasscode(.zero)),
            ("MT:-24J042C00KMSP0Z800", .invalidPasscode(.repeatedDigits)),
            ("MT:-24J042C00UF-F5EX10", .invalidPasscode(.repeatedDigits)),
            ("MT:-24J042C004QG46Y900", .invalidPasscode(.sequence)),
            ("MT:-24J042C00YX018EW10", .invalidPasscode(.sequence)),
            ("MT:-24J042C00QPQ36B420", .invalidPasscode(.aboveMaximum)),
            ("MT:-24J042C00WKS18TV20", .invalidPasscode(.aboveMaximum)),
            ("MT:M5L90MP500W-GT68D20", .invalidPasscode(.aboveMaximum)),  // 111111111, connectedhomeip.
            ("MT:U34J042C00KA0648G00", .invalidVendorID(0xFFF5)),
            ("MT:Y54J042C00KA0648G00", .invalidVendorID(0xFFFF)),
            ("MT:Y.K906DB00KA0648G00", .invalidProductID(0, vendorID: 0xFFF1)),
            ("MT:-24J042C00KA0648G000", .malformedTLVExtension(firstByte: 0)),
        ]
    )
    func rejectsInvalidFields(_ text: String, _ expected: MatterPayloadError) {
        #expect(throws: expected) { try MatterPayloadParser.parseQRCode(text) }
    }

    @Test("vendor ID 0 with a product ID, all rendezvous bits and an empty TLV structure are accepted")
    func acceptsEdgeValues() throws {
        let unspecifiedVendor = try MatterPayloadParser.parseQRCode("MT:AFT916DB00KA0648G00")
        #expect(unspecifiedVendor.vendorID == 0 && unspecifiedVendor.productID == 5)

        let allBits = try MatterPayloadParser.parseQRCode("MT:-24J0MD301KA0648G00")
        #expect(allBits.rendezvousInformation == 0xFF)
        #expect(allBits.rendezvousMethods == MatterSetupPayload.rendezvousBitNames)

        let emptyTLV = try MatterPayloadParser.parseQRCode("MT:-24J042C00KA064IJ3P0O0")
        #expect(emptyTLV.hasTLVExtension)
        #expect(emptyTLV.passcode == 20_202_021)
    }

    @Test("inputs beyond the length limit are refused before decoding")
    func refusesOversizedInput() {
        let text = "MT:" + String(repeating: "0", count: 5000)
        #expect(throws: MatterPayloadError.inputTooLong(length: 5003, limit: 4096)) {
            try MatterPayloadParser.parseQRCode(text)
        }
        #expect(MatterPayloadParser.looksLikeMatter(text) == false)
    }
}
