/// The shared parser of the §5 identification answers, which come as bare text on most modules
/// and as `+NAME: text` on a few (nRF91 `+CGSN: "..."`, BC95 `+CGSN:...`).
enum IdentificationText {
    /// The first non-empty line, with an optional `prefix:` and surrounding quotes removed.
    ///
    /// Lines that are not printable ASCII are skipped: identification text is IA5 (V.250 §5.1),
    /// and line noise that happens to decode as UTF-8 (`é`, `ž`) is not a manufacturer.
    static func first(_ response: ATResponse, prefix: String) throws(ATResponseParseError) -> String {
        for line in response.bareLines where isPrintableASCII(line) {
            var text = Substring(line)
            if text.hasPrefix(prefix + ":") {
                text = text.dropFirst(prefix.count + 1)
            }
            var value = text.trimmingSpaces()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            if !value.isEmpty { return value }
        }
        throw ATResponseParseError(response, "expected an identification line")
    }

    /// Whether every character is printable ASCII (space to tilde).
    static func isPrintableASCII(_ line: String) -> Bool {
        line.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
    }
}
