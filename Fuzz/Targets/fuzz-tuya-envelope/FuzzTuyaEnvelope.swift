import Foundation
import FuzzSupport

@testable import TuyaCloud

/// The cloud's response envelope decoder, for every result type nbgw reads, on any bytes a cloud,
/// a gateway in front of it or a broken connection can deliver.
///
/// Properties:
/// 1. No crash, whatever the bytes (numbers out of range, codes as strings, nested garbage).
/// 2. A decoded envelope encodes (CloudJSON, the bytes nbgw would store) and decodes back to the
///    same success flag, code, message, time and result.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    FuzzTuyaEnvelope.roundTrip(CloudAPI.TokenResult.self, bytes)
    FuzzTuyaEnvelope.roundTrip(CloudAPI.RegisterResult.self, bytes)
    FuzzTuyaEnvelope.roundTrip(CloudAPI.Page<CloudAPI.Module>.self, bytes)
    FuzzTuyaEnvelope.roundTrip(CloudAPI.QRParseResult.self, bytes)
    FuzzTuyaEnvelope.roundTrip(CloudAPI.PairingTokenResult.self, bytes)
    FuzzTuyaEnvelope.roundTrip(CloudAPI.BindResult.self, bytes)
    FuzzTuyaEnvelope.roundTrip(CloudAPI.PairingResult.self, bytes)
    FuzzTuyaEnvelope.roundTrip(CloudAPI.UnbindResult.self, bytes)
    FuzzTuyaEnvelope.roundTrip(CloudAPI.Page<CloudAPI.Binding>.self, bytes)
    FuzzTuyaEnvelope.roundTrip(EmptyResult.self, bytes)
    return 0
}

enum FuzzTuyaEnvelope {
    static func roundTrip<Result: Codable & Sendable & Equatable>(_ type: Result.Type, _ bytes: [UInt8]) {
        guard let envelope = try? TuyaEnvelope<Result>.decode(bytes) else { return }
        let encoded: [UInt8]
        do {
            encoded = try CloudJSON.encode(envelope)
        } catch {
            fuzzFail("\(type): a decoded envelope does not encode: \(error)")
        }
        guard let again = try? TuyaEnvelope<Result>.decode(encoded) else {
            fuzzFail("\(type): \(String(decoding: encoded, as: UTF8.self)) does not decode back")
        }
        fuzzCheck(
            again.success == envelope.success && again.code == envelope.code && again.msg == envelope.msg
                && again.t == envelope.t && again.result == envelope.result,
            "\(type): \(String(decoding: bytes, as: UTF8.self).debugDescription) round-trips to "
                + String(decoding: encoded, as: UTF8.self)
        )
    }
}
