/// Command lines as they may be logged or audited: the secrets of the commands that carry them
/// replaced by `***`.
///
/// 3GPP TS 27.007 commands with passwords: `+CPIN` (§8.3, PIN or PUK and new PIN), `+CPIN2`,
/// `+CPWD` (§7.5, old and new password), `+CLCK` (§7.4, the facility password, third field),
/// `+CPINC`, and vendor unlock commands of the same shape (under any vendor symbol: `^CPIN`).
///
/// The line is read as a module reads it (``ATCommandLine``): spaces before the `=`, lower case,
/// `;`-joined commands and basic commands in front (`ATE0+CPIN="1234"`) are all found. A line that
/// cannot be read is masked from the first `=` after a secret command's name on (the name found in
/// any case, spaces ignored), and a command whose arguments name a secret command (a dial string,
/// a quoted value) has all its arguments masked: never a PIN in a log because the reading was unsure.
///
/// ```swift
/// ATCommandRedaction.redact("AT+CPIN=\"1234\"")               // AT+CPIN=***
/// ATCommandRedaction.redact("AT+CPIN = \"1234\"")             // AT+CPIN =***
/// ATCommandRedaction.redact("AT+CLCK=\"SC\",1,\"1234\"")      // AT+CLCK="SC",1,***
/// ATCommandRedaction.redact("AT+CSQ;+CPWD=\"SC\",\"1\",\"2\"")  // AT+CSQ;+CPWD=***
/// ATCommandRedaction.redact("AT+CPIN=\"1234")                 // AT+CPIN=*** (not closed: unreadable)
/// ```
public enum ATCommandRedaction {
    /// Commands (without their symbol) whose every argument is secret, and those whose arguments
    /// from `keep` on are.
    static let secretArguments: [(name: String, keep: Int)] = [
        ("CPIN2", 0), ("CPIN", 0), ("CPWD", 0), ("CLCK", 2), ("CPINC", 0), ("QPINC", 1), ("SPIC", 0),
    ]

    /// The names searched for in lines and arguments that are not read as secret commands: each one
    /// also finds its longer relatives (`CPIN` finds `CPIN2` and `CPINC`).
    static let secretNames = ["CPIN", "CPWD", "CLCK", "QPINC", "SPIC"]

    /// `command` with its secrets masked; commands without secrets come back unchanged.
    public static func redact(_ command: String) -> String {
        guard let line = try? ATCommandLine(command) else { return redactUnreadable(command) }
        let masks = line.commands.compactMap(secretRange(of:))
        guard !masks.isEmpty else { return command }
        let scalars = command.unicodeScalars
        var result = ""
        var position = scalars.startIndex
        for mask in masks {
            result.unicodeScalars.append(contentsOf: scalars[position..<mask.lowerBound])
            result += "***"
            position = mask.upperBound
        }
        result.unicodeScalars.append(contentsOf: scalars[position...])
        return result
    }

    /// Whether `command` carries a secret ``redact(_:)`` would mask (`nbgw at` warns when one is
    /// given on its command line, where other users can read it).
    public static func containsSecret(_ command: String) -> Bool {
        redact(command) != command
    }

    /// What to mask in one command of a readable line, if anything.
    private static func secretRange(of command: ATCommandLine.Command) -> Range<String.Index>? {
        let hasArguments = command.argumentText.contains { $0 != " " }
        guard hasArguments else { return nil }
        // A secret command's name inside a command's arguments (a dial string, a quoted value): how
        // a module reads that is not for this reader to guess.
        if firstSecretName(in: command.argumentText) != nil { return command.argumentRange }
        guard command.kind == .extended, command.form == .set,
            let keep = secretArguments.first(where: { $0.name == command.name.dropFirst() })?.keep
        else { return nil }
        guard keep > 0 else { return command.argumentRange }
        guard command.arguments.count > keep else { return nil }
        return command.arguments[keep].range.lowerBound..<command.argumentRange.upperBound
    }

    /// A line ``ATCommandLine`` cannot read: from the first `=` after the first secret name on (or
    /// right after the name when no `=` follows), everything is masked.
    static func redactUnreadable(_ command: String) -> String {
        let scalars = command.unicodeScalars
        guard let name = firstSecretName(in: command) else { return command }
        var start = name.upperBound
        if let equals = scalars[name.upperBound...].firstIndex(of: "=") {
            start = scalars.index(after: equals)
        }
        guard start < scalars.endIndex else { return command }
        return String(scalars[..<start]) + "***"
    }

    /// Where the first of ``secretNames`` is in `text`, in any case, spaces between its letters
    /// ignored: from its first letter to just after its last.
    private static func firstSecretName(in text: String) -> Range<String.Index>? {
        // The scalars of `text` other than spaces, letters upper-cased, with where each is.
        var visible: [(scalar: Unicode.Scalar, index: String.Index)] = []
        var index = text.unicodeScalars.startIndex
        for scalar in text.unicodeScalars {
            if scalar != " " {
                let upper = ("a"..."z").contains(scalar) ? Unicode.Scalar(scalar.value - 32)! : scalar
                visible.append((upper, index))
            }
            index = text.unicodeScalars.index(after: index)
        }
        var found: Range<String.Index>?
        for name in secretNames {
            let pattern = Array(name.unicodeScalars)
            guard pattern.count <= visible.count else { continue }
            for start in 0...(visible.count - pattern.count) {
                if let found, visible[start].index >= found.lowerBound { break }
                guard (0..<pattern.count).allSatisfy({ visible[start + $0].scalar == pattern[$0] }) else { continue }
                let last = visible[start + pattern.count - 1].index
                found = visible[start].index..<text.unicodeScalars.index(after: last)
                break
            }
        }
        return found
    }
}
