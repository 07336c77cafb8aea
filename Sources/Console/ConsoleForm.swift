import Foundation

/// `application/x-www-form-urlencoded` bodies and query strings: `a=1&b=x+y` → `["a": "1", "b": "x y"]`.
/// The last value of a repeated name wins; a pair that does not decode is dropped.
enum ConsoleForm {
    static func parse(_ text: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { continue }
            fields[name] = parts.count > 1 ? (decode(parts[1]) ?? "") : ""
        }
        return fields
    }

    static func decode(_ component: Substring) -> String? {
        component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// `value` encoded for a query string or a path segment.
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
