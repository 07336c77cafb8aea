import Foundation

/// The ingest API's request and response bodies (docs/ingest-api.yaml). Keys match the CLI's
/// `--json` shapes (docs/cli.md): camelCase, `deviceId`, absent optional values omitted.
///
/// The requests are here (Foundation only, so Fuzz/ builds their decoding alone); the responses,
/// made of store records, are in IngestAPI+Responses.swift.
public enum IngestAPI {
    /// `POST /v1/qr/parse`.
    public struct ParseRequest: Decodable, Sendable, FlatRequest {
        public var qr: String

        public init(from decoder: any Decoder) throws {
            try StrictJSON.rejectUnknownKeys(decoder, allowed: ["qr"])
            let container = try decoder.container(keyedBy: StrictJSON.AnyKey.self)
            qr = try container.decode(String.self, forKey: .init(stringValue: "qr"))
        }

        init?(fields: [String: String?]) throws {
            try StrictJSON.rejectUnknown(fields, allowed: ["qr"])
            guard let qr = fields["qr"] else { throw StrictJSON.missing("qr") }
            guard let qr else { return nil }
            self.qr = qr
        }
    }

    /// `POST /v1/bindings`.
    public struct BindRequest: Decodable, Sendable, FlatRequest {
        public var qr: String
        public var account: String
        public var home: String
        public var token: String?

        public init(from decoder: any Decoder) throws {
            try StrictJSON.rejectUnknownKeys(decoder, allowed: ["qr", "account", "home", "token"])
            let container = try decoder.container(keyedBy: StrictJSON.AnyKey.self)
            qr = try container.decode(String.self, forKey: .init(stringValue: "qr"))
            account = try container.decode(String.self, forKey: .init(stringValue: "account"))
            home = try container.decode(String.self, forKey: .init(stringValue: "home"))
            // Optional, but a string when present: `null` is a wrong type (400), as the spec says.
            let tokenKey = StrictJSON.AnyKey(stringValue: "token")
            token = container.contains(tokenKey) ? try container.decode(String.self, forKey: tokenKey) : nil
        }

        init?(fields: [String: String?]) throws {
            try StrictJSON.rejectUnknown(fields, allowed: ["qr", "account", "home", "token"])
            // In the order the Decodable initializer reads them, so the same field is named missing.
            var required: [String] = []
            for name in ["qr", "account", "home"] {
                guard let value = fields[name] else { throw StrictJSON.missing(name) }
                guard let value else { return nil }
                required.append(value)
            }
            qr = required[0]
            account = required[1]
            home = required[2]
            switch fields["token"] {
            case .none: token = nil
            case .some(.none): return nil  // `"token": null`: JSONDecoder words the wrong type
            case .some(.some(let value)): token = value
            }
        }
    }

    /// `POST /v1/homes/{home}/pairing-tokens`: an empty body or `{}`.
    public struct EmptyRequest: Decodable, Sendable, FlatRequest {
        public init(from decoder: any Decoder) throws {
            try StrictJSON.rejectUnknownKeys(decoder, allowed: [])
        }

        init?(fields: [String: String?]) throws {
            try StrictJSON.rejectUnknown(fields, allowed: [])
        }
    }
}
