import Foundation

/// A udev rules file read with systemd's grammar (systemd 252, `src/udev/udev-rules.c`), strictly:
///
/// - a physical line ending in `\` continues on the next one (leading whitespace of the continuation is
///   dropped); lines whose first non-blank character is `#` are comments, also inside a continuation;
/// - a rule is `KEY[{ATTR}] OP "VALUE"` pairs separated by a comma and whitespace, OP one of
///   `==`, `!=`, `=`, `+=`, `-=`, `:=`; `\"` and `\\` are the escapes inside a value (`e"..."` values
///   accept C escapes);
/// - every key is one systemd knows, with the operators and the `{ATTR}` it accepts;
/// - assigned values use only known substitutions (`$env{KEY}`, `$attr{FILE}`, `%k`, …);
/// - every `GOTO` has a `LABEL` later in the file, every `LABEL` is a `GOTO` target, labels are unique,
///   and a rule has at most one `GOTO`.
///
/// Stricter than systemd (which only warns or tolerates): a trailing comma, a missing comma, a value not
/// in double quotes, or an assignment with a match operator (`GROUP=="x"`) are errors here.
struct UdevRulesFile {
    /// One `KEY{ATTR} OP "VALUE"`.
    struct Token: Equatable, CustomStringConvertible {
        var key: String
        var attribute: String?
        var op: Operator
        var value: String

        var description: String {
            "\(key)\(attribute.map { "{\($0)}" } ?? "")\(op.rawValue)\"\(value)\""
        }
    }

    enum Operator: String, CaseIterable {
        case match = "=="
        case nomatch = "!="
        case assign = "="
        case add = "+="
        case remove = "-="
        case assignFinal = ":="

        var isMatch: Bool { self == .match || self == .nomatch }
    }

    /// One logical line: a rule and the number of its first physical line.
    struct Rule {
        var line: Int
        var tokens: [Token]

        func tokens(_ key: String) -> [Token] { tokens.filter { $0.key == key } }
        var label: String? { tokens("LABEL").first?.value }
        var gotoTarget: String? { tokens("GOTO").first?.value }
    }

    struct Problem: Error, Equatable, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    let rules: [Rule]

    /// Parses and checks `text`; throws every problem found, in line order.
    init(text: String) throws(UdevRulesProblems) {
        var problems: [Problem] = []
        var rules: [Rule] = []
        for (line, content) in Self.logicalLines(text, problems: &problems) {
            do {
                let tokens = try Self.tokens(content, line: line)
                try UdevRulesKeyCatalogue.check(tokens, line: line)
                rules.append(Rule(line: line, tokens: tokens))
            } catch {
                problems.append(error)
            }
        }
        problems += Self.checkLabels(rules)
        guard problems.isEmpty else { throw UdevRulesProblems(problems: problems.sorted { $0.line < $1.line }) }
        self.rules = rules
    }

    /// Joins continuations, drops comments and blank lines.
    static func logicalLines(_ text: String, problems: inout [Problem]) -> [(Int, String)] {
        var result: [(Int, String)] = []
        var pending: (start: Int, text: String)?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, raw) in lines.enumerated() {
            let number = offset + 1
            if raw.contains("\r") { problems.append(Problem(line: number, message: "carriage return in line")) }
            var line = String(raw.drop { $0 == " " || $0 == "\t" })
            if line.hasPrefix("#") { continue }
            if line.count >= 16384 { problems.append(Problem(line: number, message: "line longer than udev's limit")) }
            let continues = line.hasSuffix("\\")
            if continues { line.removeLast() }
            if var current = pending {
                current.text += line
                pending = current
            } else if continues || !line.trimmingCharacters(in: .whitespaces).isEmpty {
                pending = (number, line)
            }
            if !continues, let current = pending {
                if !current.text.trimmingCharacters(in: .whitespaces).isEmpty {
                    result.append((current.start, current.text))
                }
                pending = nil
            }
        }
        if let pending {
            problems.append(Problem(line: pending.start, message: "the file ends inside a line continuation"))
        }
        return result
    }

    /// Splits one logical line into tokens.
    static func tokens(_ line: String, line number: Int) throws(Problem) -> [Token] {
        let characters = Array(line)
        var index = 0
        var tokens: [Token] = []
        func fail(_ message: String) -> Problem {
            Problem(
                line: number,
                message: "\(message) (column \(index + 1)): \(line.trimmingCharacters(in: .whitespaces))"
            )
        }
        func skipBlanks() {
            while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 }
        }

        skipBlanks()
        while index < characters.count {
            if !tokens.isEmpty {
                guard characters[index] == "," else { throw fail("expected \", \" between key/value pairs") }
                index += 1
                guard index < characters.count, characters[index] == " " || characters[index] == "\t" else {
                    throw fail(index >= characters.count ? "trailing comma" : "expected whitespace after the comma")
                }
                skipBlanks()
                guard index < characters.count else { throw fail("trailing comma") }
            }
            // KEY
            let keyStart = index
            while index < characters.count, characters[index].isASCII,
                characters[index].isUppercase || characters[index] == "_"
            {
                index += 1
            }
            let key = String(characters[keyStart..<index])
            guard !key.isEmpty else { throw fail("expected a key") }
            // {ATTR}
            var attribute: String?
            if index < characters.count, characters[index] == "{" {
                guard let close = characters[index...].firstIndex(of: "}") else { throw fail("unterminated {") }
                attribute = String(characters[(index + 1)..<close])
                guard !(attribute!.isEmpty) else { throw fail("empty {} after \(key)") }
                guard !attribute!.contains(where: { $0 == " " || $0 == "\"" || $0 == "{" }) else {
                    throw fail("invalid attribute name \(attribute!.debugDescription)")
                }
                index = close + 1
            }
            skipBlanks()
            // OP
            let rest = String(characters[index..<min(index + 2, characters.count)])
            guard
                let op = [Operator.match, .nomatch, .add, .remove, .assignFinal, .assign].first(where: {
                    rest.hasPrefix($0.rawValue)
                })
            else { throw fail("expected an operator (==, !=, =, +=, -=, :=) after \(key)") }
            index += op.rawValue.count
            skipBlanks()
            // "VALUE" or e"VALUE"
            var escaped = false
            if index + 1 < characters.count, characters[index] == "e", characters[index + 1] == "\"" {
                escaped = true
                index += 1
            }
            guard index < characters.count, characters[index] == "\"" else {
                throw fail("expected a double-quoted value")
            }
            index += 1
            var value = ""
            var closed = false
            while index < characters.count {
                let character = characters[index]
                if character == "\\", index + 1 < characters.count {
                    let next = characters[index + 1]
                    if next == "\"" || next == "\\" {
                        value.append(next)
                        index += 2
                        continue
                    }
                    if escaped {
                        switch next {
                        case "n": value.append("\n")
                        case "t": value.append("\t")
                        case "a", "b", "f", "r", "v", "x", "0": value.append(character); value.append(next)
                        default: throw fail("unknown escape \\\(next) in an e\"\" value")
                        }
                        index += 2
                        continue
                    }
                }
                if character == "\"" {
                    closed = true
                    index += 1
                    break
                }
                value.append(character)
                index += 1
            }
            guard closed else { throw fail("unterminated value") }
            tokens.append(Token(key: key, attribute: attribute, op: op, value: value))
            skipBlanks()
        }
        return tokens
    }

    /// `GOTO`/`LABEL` pairing: targets exist later in the file, labels are unique and used.
    static func checkLabels(_ rules: [Rule]) -> [Problem] {
        var problems: [Problem] = []
        var labels: [String: Int] = [:]
        for rule in rules {
            for label in rule.tokens("LABEL") {
                if let first = labels[label.value] {
                    problems.append(
                        Problem(line: rule.line, message: "LABEL \(label.value) already defined on line \(first)")
                    )
                } else {
                    labels[label.value] = rule.line
                }
            }
        }
        var used: Set<String> = []
        for rule in rules {
            let gotos = rule.tokens("GOTO")
            if gotos.count > 1 { problems.append(Problem(line: rule.line, message: "more than one GOTO in a rule")) }
            for target in gotos {
                used.insert(target.value)
                guard let labelLine = labels[target.value] else {
                    problems.append(Problem(line: rule.line, message: "GOTO \(target.value) has no LABEL"))
                    continue
                }
                if labelLine <= rule.line {
                    problems.append(
                        Problem(line: rule.line, message: "GOTO \(target.value) jumps backwards to line \(labelLine)")
                    )
                }
            }
        }
        for (label, line) in labels where !used.contains(label) {
            problems.append(Problem(line: line, message: "LABEL \(label) is never a GOTO target"))
        }
        return problems
    }
}

/// Every problem of a rules file.
struct UdevRulesProblems: Error, CustomStringConvertible {
    var problems: [UdevRulesFile.Problem]
    var description: String { problems.map(\.description).joined(separator: "\n") }
}
