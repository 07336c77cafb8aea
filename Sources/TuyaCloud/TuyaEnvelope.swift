import Foundation

/// The response envelope of every cloud OpenAPI call (pairing-anchors §1.5–1.6):
/// `{"success": true, "result": …, "t": 1588925778000}` or
/// `{"success": false, "code": 1010, "msg": "token invalid", "t": …}`.
///
/// Tuya sends `code` as a number; some gateways in front of it send a string, so both decode.
public struct TuyaEnvelope<Result: Decodable & Sendable>: Decodable, Sendable {
    public var success: Bool
    public var code: Int?
    public var msg: String?
    public var result: Result?
    /// The cloud's time in milliseconds: compared with ours when it answers 1013.
    public var t: Int64?

    public init(success: Bool, code: Int? = nil, msg: String? = nil, result: Result? = nil, t: Int64? = nil) {
        self.success = success
        self.code = code
        self.msg = msg
        self.result = result
        self.t = t
    }

    enum CodingKeys: String, CodingKey {
        case success, code, msg, result, t
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        success = try container.decode(Bool.self, forKey: .success)
        if let number = try? container.decodeIfPresent(Int.self, forKey: .code) {
            code = number
        } else if let text = try? container.decodeIfPresent(String.self, forKey: .code) {
            code = Int(text)
        } else {
            code = nil
        }
        msg = try? container.decodeIfPresent(String.self, forKey: .msg)
        t = try? container.decodeIfPresent(Int64.self, forKey: .t)
        result = success ? try container.decodeIfPresent(Result.self, forKey: .result) : nil
    }

    /// Decodes an envelope from response bytes.
    public static func decode(_ bytes: [UInt8]) throws -> TuyaEnvelope<Result> {
        try JSONDecoder().decode(TuyaEnvelope<Result>.self, from: Data(bytes))
    }
}

extension TuyaEnvelope: Encodable where Result: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(success, forKey: .success)
        try container.encodeIfPresent(code, forKey: .code)
        try container.encodeIfPresent(msg, forKey: .msg)
        try container.encodeIfPresent(result, forKey: .result)
        try container.encodeIfPresent(t, forKey: .t)
    }
}

/// A result that carries nothing (some calls answer `"result": true`).
public struct EmptyResult: Codable, Sendable, Equatable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
    public func encode(to encoder: any Encoder) throws {}
}
