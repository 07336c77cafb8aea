extension String {
    /// A form of untrusted text that is safe to put in a message or a log line: quoted, control
    /// and non-ASCII characters escaped, cut to `limit` characters with an ellipsis.
    public func escapedForDisplay(limit: Int = 64) -> String {
        var out = "\""
        var count = 0
        for scalar in unicodeScalars {
            if count >= limit {
                out += "…"
                break
            }
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{\(String(scalar.value, radix: 16))}"
            }
            count += 1
        }
        return out + "\""
    }
}
