import Foundation
import Hummingbird

/// A received request reduced to what signing and routing need: the method, the raw path, the
/// decoded query items, lower-cased headers and the exact body bytes.
public struct CloudServerRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [(name: String, value: String)]
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, rawQuery: String?, headers: [String: String], body: [UInt8]) {
        self.method = method.uppercased()
        self.path = path
        self.query = CloudServerRequest.decodeQuery(rawQuery)
        self.headers = headers
        self.body = body
    }

    public init(_ request: Request, body: [UInt8]) {
        var headers: [String: String] = [:]
        for field in request.headers {
            headers[field.name.canonicalName] = field.value
        }
        self.init(
            method: request.method.rawValue,
            path: request.uri.path,
            rawQuery: request.uri.query,
            headers: headers,
            body: body
        )
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The preference token a client sends (`Prefer: http-status`, RFC 7240) to have refusals
    /// answered with the HTTP status of their code instead of Tuya's 200 (docs/cloud-api.yaml,
    /// "Envelope and statuses").
    public static let httpStatusPreference = "http-status"

    /// Whether the client asked for refusals with their own HTTP status (``httpStatusPreference``).
    public var prefersHTTPStatuses: Bool {
        guard let prefer = header("prefer") else { return false }
        return prefer.split(separator: ",").contains { preference in
            preference.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                == CloudServerRequest.httpStatusPreference
        }
    }

    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// Query items form-decoded (`+` is a space, then `%XX`), in order (signing sorts them); an
    /// item whose escapes are malformed is kept as sent.
    static func decodeQuery(_ raw: String?) -> [(name: String, value: String)] {
        guard let raw, !raw.isEmpty else { return [] }
        return raw.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = formDecode(parts[0])
            let value = parts.count > 1 ? formDecode(parts[1]) : ""
            return (name, value)
        }
    }

    static func formDecode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// A path segment (`{device_id}`, `{token}`), percent-decoded; kept as sent when malformed.
    public static func segment(_ raw: Substring) -> String {
        String(raw).removingPercentEncoding ?? String(raw)
    }
}
