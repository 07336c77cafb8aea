/// Makes scanned or typed text safe to put in an error message: at most `limit` characters, printable ASCII kept,
/// everything else (control characters, bidi overrides, non-ASCII) written as a Swift escape such as `\u{202E}`.
enum MatterUntrustedText {
    /// How many characters of untrusted input an error message may quote.
    static let defaultLimit = 12

    /// The escaped form of `text`, cut to `limit` characters with "..." appended when something was cut.
    /// The result is pure printable ASCII and never contains an unescaped quote or backslash.
    static func escaped<S: StringProtocol>(_ text: S, limit: Int = defaultLimit) -> String {
        var result = ""
        var count = 0
        for character in text {
            if count == limit {
                result += "..."
                break
            }
            for scalar in character.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case " "..."~": result.unicodeScalars.append(scalar)
                default: result += scalar.escaped(asASCII: true)
                }
            }
            count += 1
        }
        return result
    }
}
