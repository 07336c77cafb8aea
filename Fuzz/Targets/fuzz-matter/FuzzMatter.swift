import FuzzSupport

@testable import Pairing

/// The Matter onboarding payload decoder (Matter Core spec §5.1.3 QR, §5.1.4 manual codes).
///
/// Properties, for any text:
/// 1. No crash, no trap, and every refusal's message is free of control characters.
/// 2. A QR payload the decoder accepts encodes back (without TLV data) to text that decodes to the
///    same payload; a manual code likewise.
/// 3. An accepted QR payload has a manual code, and that code decodes to the same passcode and
///    short discriminator (and vendor and product when it has 21 digits).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzMatter.run(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}

enum FuzzMatter {
    static func run(_ text: String) {
        _ = MatterPayloadParser.looksLikeMatter(text)
        do {
            let payload = try MatterPayloadParser.parseQRCode(text)
            if !payload.hasTLVExtension {
                let encoded = try payload.qrCodeString()
                let again = try MatterPayloadParser.parseQRCode(encoded)
                fuzzCheck(again == payload, "QR round trip: \(payload) → \(encoded) → \(again)")
            }
            let manual = try payload.manualCodeString()
            let decoded = try MatterPayloadParser.parseManualCode(manual)
            fuzzCheck(
                decoded.passcode == payload.passcode && decoded.shortDiscriminator == payload.shortDiscriminator,
                "QR \(payload) → manual \(manual) → \(decoded)"
            )
            if manual.count == 21 {
                fuzzCheck(
                    decoded.vendorID == payload.vendorID && decoded.productID == payload.productID,
                    "QR \(payload) → 21-digit manual \(manual) → \(decoded)"
                )
            }
        } catch {
            checkMessage(error)
        }
        do {
            let payload = try MatterPayloadParser.parseManualCode(text)
            let encoded = try payload.manualCodeString()
            let again = try MatterPayloadParser.parseManualCode(encoded)
            fuzzCheck(again == payload, "manual round trip: \(payload) → \(encoded) → \(again)")
        } catch {
            checkMessage(error)
        }
    }

    static func checkMessage(_ error: MatterPayloadError) {
        let message = String(describing: error)
        fuzzCheck(
            !message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
            "error message carries a control character: \(message.debugDescription)"
        )
    }
}
