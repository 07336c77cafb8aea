import Foundation
import TuyaCloud

/// A request body the cloud takes: the fields it may have (docs/cloud-api.yaml).
public protocol CloudServerBody: Decodable {
    static var fields: Set<String> { get }
}

/// Strict request bodies: one JSON object, no field the call does not take, no `null`, every value
/// of its type; anything else is code 1109 (HTTP 400) naming what is wrong.
public enum CloudServerJSON {
    public static func decode<Body: CloudServerBody>(_ type: Body.Type, from bytes: [UInt8]) -> Result<Body, CloudServerFailure> {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            return .failure(.invalid("the body is not JSON; send a JSON object (docs/cloud-api.yaml)"))
        }
        guard let fields = object as? [String: Any] else {
            return .failure(.invalid("the body must be a JSON object"))
        }
        if let unknown = fields.keys.filter({ !Body.fields.contains($0) }).sorted().first {
            return .failure(
                .invalid(
                    "unknown field \(unknown.debugDescription); this call takes "
                        + Body.fields.sorted().joined(separator: ", ")
                )
            )
        }
        if let null = fields.filter({ $0.value is NSNull }).keys.sorted().first {
            return .failure(.invalid("field \(null) is null; leave it out instead"))
        }
        do {
            return .success(try JSONDecoder().decode(Body.self, from: Data(bytes)))
        } catch DecodingError.keyNotFound(let key, _) {
            return .failure(.invalid("the body lacks the required field \(key.stringValue)"))
        } catch DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .failure(.invalid("field \(field) has the wrong type"))
        } catch {
            return .failure(.invalid("the body is not the JSON this call takes (docs/cloud-api.yaml)"))
        }
    }
}

extension EmptyResult: CloudServerBody {
    public static var fields: Set<String> { [] }
}

extension CloudAPI.RegisterRequest: CloudServerBody {
    public static var fields: Set<String> {
        ["imei", "imsi", "iccid", "manufacturer", "model", "firmware", "product_id", "device_id", "label_code"]
    }
}

extension CloudAPI.QRParseRequest: CloudServerBody {
    public static var fields: Set<String> { ["code"] }
}

extension CloudAPI.PairingTokenRequest: CloudServerBody {
    public static var fields: Set<String> { ["pairing_type", "asset_id", "uid", "time_zone_id"] }
}

extension CloudAPI.BindRequest: CloudServerBody {
    public static var fields: Set<String> { ["device_id", "asset_id", "uid", "token", "time_zone_id"] }
}

extension CloudAPI.TransferRequest: CloudServerBody {
    public static var fields: Set<String> { ["from_uid", "from_home", "to_uid", "to_home", "reason"] }
}

extension CloudAPI.FreezeRequest: CloudServerBody {
    public static var fields: Set<String> { ["frozen", "reason"] }
}
