/// Command lines as they may be logged or audited: the secrets of the commands that carry them
/// replaced by `***`.
///
/// 3GPP TS 27.007 commands with passwords: `+CPIN` (§8.3, PIN or PUK and new PIN), `+CPIN2`,
/// `+CPWD` (§7.5, old and new password), `+CLCK` (§7.4, the facility password, third field),
/// `+CPINC`, and vendor unlock commands of the same shape.
///
/// ```swift
/// ATCommandRedaction.redact("AT+CPIN=\"1234\"")               // AT+CPIN=***
/// ATCommandRedaction.redact("AT+CLCK=\"SC\",1,\"1234\"")      // AT+CLCK="SC",1,***
/// ATCommandRedaction.redact("AT+CSQ;+CPWD=\"SC\",\"1\",\"2\"")  // AT+CSQ;+CPWD=***
/// ```
public enum ATCommandRedaction {
    /// Commands whose every argument is secret, and those whose arguments from `keep` on are.
    static let secretArguments: [(name: String, keep: Int)] = [
        ("+CPIN2", 0), ("+CPIN", 0), ("+CPWD", 0), ("+CLCK", 2), ("+CPINC", 0), ("+QPINC", 1), ("+SPIC", 0),
    ]

    /// `command` with its secrets masked; commands without secrets come back unchanged.
    public static func redact(_ command: String) -> String {
        // Work on each `;`-separated part (quotes respected), so `AT+CSQ;+CPIN="1234"` is covered.
        var parts: [String] = []
        var current = ""
        var quoted = false
        for character in command {
            if character == "\"" { quoted.toggle() }
            if character == ";" && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.map(redactOne).joined(separator: ";")
    }

    private static func redactOne(_ part: String) -> String {
        let upper = part.uppercased()
        for (name, keep) in secretArguments {
            guard let range = upper.range(of: name + "="),
                upper[upper.startIndex..<range.lowerBound].allSatisfy({ "AT ".contains($0) })
            else { continue }
            let head = String(part[..<range.upperBound])
            let arguments = String(part[range.upperBound...])
            guard keep > 0 else { return head + (arguments.isEmpty ? "" : "***") }
            var fields: [String] = []
            var field = ""
            var inQuotes = false
            for character in arguments {
                if character == "\"" { inQuotes.toggle() }
                if character == "," && !inQuotes {
                    fields.append(field)
                    field = ""
                } else {
                    field.append(character)
                }
            }
            fields.append(field)
            guard fields.count > keep else { return part }
            return head + (fields.prefix(keep) + ["***"]).joined(separator: ",")
        }
        return part
    }
}
