/// Finds the line of each key in a TOML document, for error messages: TOMLKit reports positions
/// for syntax errors only, not for the values of a document it parsed.
///
/// A line-oriented scan: `[table]` and `[[array]]` headers set the prefix (array entries are
/// numbered from 0: `ports[1].baud`), `key = value` lines record `prefix.key`, and the elements of
/// an array value record `prefix.key[i]` at the line each starts on (`discovery.probe[2]`), also
/// when the array spans lines. Multi-line strings are skipped. Keys of an inline table resolve to
/// the line of the table's key.
struct TOMLKeyLocator: Sendable {
    private var lines: [String: Int] = [:]

    init(text: String) {
        var prefix = ""
        var arrayCounts: [String: Int] = [:]
        var depth = 0
        var array: ArrayScan?
        var inMultilineString: String?
        // Lines split on the LF scalar, not on the Character "\n": in Swift "\r\n" is one
        // Character, so a CR LF file was one long line and every key "on line 1" (fuzz-toml).
        let rawLines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, rawLine) in rawLines.enumerated() {
            let number = offset + 1
            var line = Substring(rawLine)
            if line.unicodeScalars.last == "\r" { line = Substring(line.unicodeScalars.dropLast()) }
            if let delimiter = inMultilineString {
                guard let range = line.range(of: delimiter) else { continue }
                line = line[range.upperBound...]
                inMultilineString = nil
            }
            let code = Self.strippingComment(line).trimmingSpaces()
            if var scan = array {
                scan.feed(Substring(code), line: number) { lines[$0] = lines[$0] ?? $1 }
                array = scan.isOpen ? scan : nil
                continue
            }
            if depth > 0 {
                depth = max(0, depth + Self.bracketBalance(Substring(code)))
                continue
            }
            if code.hasPrefix("[[") {
                let name = code.dropFirst(2).prefix { $0 != "]" }.trimmingSpaces().unquoted()
                let index = arrayCounts[name, default: -1] + 1
                arrayCounts[name] = index
                prefix = "\(name)[\(index)]"
                lines[prefix] = lines[prefix] ?? number
                continue
            }
            if code.hasPrefix("[") {
                prefix = code.dropFirst().prefix { $0 != "]" }.trimmingSpaces().unquoted()
                lines[prefix] = lines[prefix] ?? number
                continue
            }
            guard let equals = Self.assignment(in: code) else { continue }
            let key = code[..<equals].trimmingSpaces().split(separator: ".").map {
                String($0).trimmingSpaces().unquoted()
            }.joined(separator: ".")
            let path = prefix.isEmpty ? key : "\(prefix).\(key)"
            lines[path] = lines[path] ?? number
            let value = code[code.index(after: equals)...].trimmingSpaces()
            for delimiter in ["\"\"\"", "'''"] where value.hasPrefix(delimiter) {
                if value.dropFirst(3).range(of: delimiter) == nil { inMultilineString = delimiter }
            }
            if inMultilineString == nil {
                if value.hasPrefix("[") {
                    var scan = ArrayScan(path: path)
                    scan.feed(Substring(value), line: number) { lines[$0] = lines[$0] ?? $1 }
                    array = scan.isOpen ? scan : nil
                } else {
                    depth = max(0, Self.bracketBalance(Substring(value)))
                }
            }
        }
    }

    /// The line of `key` (dotted, with `[i]` for array-of-tables entries), else of its closest
    /// enclosing key, else nil.
    func line(of key: String) -> Int? {
        var candidate = key
        while !candidate.isEmpty {
            if let line = lines[candidate] { return line }
            guard let cut = candidate.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            candidate = String(candidate[..<cut])
        }
        return nil
    }

    /// Where the scan of one array value stands, across the lines it spans: the elements of the
    /// outermost array are numbered and located; nested arrays and inline tables count as one element.
    private struct ArrayScan {
        let path: String
        var depth = 0
        var index = 0
        var expectingElement = false
        var quote: Character?
        var escaped = false

        init(path: String) {
            self.path = path
        }

        /// Whether the outermost array is still open.
        var isOpen: Bool { depth > 0 }

        /// Scans `text` (one line without its comment), reporting `path[i]` and the line of each
        /// element that starts in it.
        mutating func feed(_ text: Substring, line: Int, record: (String, Int) -> Void) {
            for character in text {
                if let open = quote {
                    if escaped {
                        escaped = false
                    } else if open == "\"" && character == "\\" {
                        escaped = true
                    } else if character == open {
                        quote = nil
                    }
                    continue
                }
                if character == " " || character == "\t" || character == "\r" { continue }
                if depth == 1, expectingElement, character != "]", character != "," {
                    record("\(path)[\(index)]", line)
                    index += 1
                    expectingElement = false
                }
                switch character {
                case "\"", "'": quote = character
                case "[", "{":
                    depth += 1
                    if depth == 1 { expectingElement = true }
                case "]", "}":
                    depth -= 1
                    if depth <= 0 { return }
                case "," where depth == 1: expectingElement = true
                default: break
                }
            }
        }
    }

    /// The index of the `=` of a `key = value` line, outside quotes; nil for other lines.
    private static func assignment(in code: String) -> String.Index? {
        var quote: Character?
        for index in code.indices {
            let character = code[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "=" {
                return index
            } else if character == "[" || character == "{" {
                return nil
            }
        }
        return nil
    }

    /// The line without its `#` comment (a `#` inside a string is kept).
    private static func strippingComment(_ line: Substring) -> Substring {
        var quote: Character?
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" {
                return line[..<index]
            }
        }
        return line
    }

    /// Opening minus closing brackets and braces outside strings.
    private static func bracketBalance(_ text: Substring) -> Int {
        var balance = 0
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "\"", "'": quote = character
            case "[", "{": balance += 1
            case "]", "}": balance -= 1
            default: break
            }
        }
        return balance
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return String(text)
    }

    fileprivate func unquoted() -> String {
        let text = String(self)
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        return text
    }
}
