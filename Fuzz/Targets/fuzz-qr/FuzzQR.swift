import DeviceIdentity
import Foundation
import FuzzSupport
import NBGWCore

@testable import Pairing

/// The QR payload parser on untrusted text: every kind (NB bind JSON, bind URLs, label URLs,
/// Matter QR and manual codes, garbage), with the fast path checked against the full parser.
///
/// Properties:
/// 1. Whenever the fast path answers, the full parser gives the same payload (differential
///    oracle: the fast path may only decline, never disagree).
/// 2. `parse` is the fast path, else the full parser: same payload or the same error code.
/// 3. Every refusal is one of the three QR codes, with a message free of control characters
///    (untrusted text is echoed escaped), and an NB bind's device id is a valid DeviceID.
/// 4. A parse result encodes as the report `nbgw qr parse --json` and the ingest API print.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzQR.run(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}

enum FuzzQR {
    static let qrCodes: Set<ErrorCode> = [.qrProtocolNotRecognized, .invalidQR, .notNBDevice]

    static func run(_ text: String) {
        let full = Result { () throws(NBGWError) -> QRPayload in try QRPayloadParser.fullParse(text) }
        if let fast = QRPayloadParser.fastParse(text) {
            guard case .success(let payload) = full, payload == fast else {
                fuzzFail("fast path gave \(fast), the full parser \(full), for \(text.debugDescription)")
            }
        }
        let parsed = Result { () throws(NBGWError) -> QRPayload in try QRPayloadParser.parse(text) }
        switch (parsed, full) {
        case (.success(let payload), _):
            check(payload, text)
        case (.failure(let error), .failure(let fullError)):
            fuzzCheck(error.code == fullError.code, "parse and fullParse disagree: \(error) vs \(fullError)")
            fuzzCheck(
                qrCodes.contains(error.code),
                "refusal with a non-QR code \(error.code) for \(text.debugDescription)"
            )
            fuzzCheck(
                !error.message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                "refusal message carries a control character: \(error.message.debugDescription)"
            )
        case (.failure(let error), .success(let payload)):
            fuzzFail("parse refused (\(error)) what fullParse accepted (\(payload)): \(text.debugDescription)")
        }
    }

    static func check(_ payload: QRPayload, _ text: String) {
        let report: QRParseReport
        switch payload {
        case .nbBind(let nb):
            fuzzCheck((try? DeviceID(nb.deviceID.rawValue)) != nil, "NB bind with an invalid device id: \(nb)")
            report = QRParseReport(nb)
        case .matter(let matter):
            report = QRParseReport(matter)
        case .label(let label):
            fuzzCheck(
                QRPayloadParser.isLabelCode(Substring(label.code)),
                "label with an invalid code \(label.code.debugDescription) from \(text.debugDescription)"
            )
            return
        case .imei(let imei):
            fuzzCheck((try? IMEI(imei.digits)) == imei, "an IMEI that does not validate again: \(imei)")
            report = QRParseReport(payload)
        }
        fuzzCheck((try? JSONEncoder().encode(report)) != nil, "the parse report does not encode: \(report)")
    }
}
