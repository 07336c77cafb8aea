/// Checks a config file's text against the TOML 1.0 syntax before TOMLKit parses it, so that only
/// well-formed TOML reaches TOMLKit; the first mistake is reported with its line and column.
///
/// Why: TOMLKit 0.6.0 embeds toml++ 3.x, whose parser *assumes* (`TOML_ASSERT_ASSUME`) things of
/// malformed input that its callers do not always check: with assertions on (debug builds) the
/// process aborts, with them off (release) the assumption is undefined behaviour. fuzz-toml found
/// three in its first minutes (a header not starting with a key, `[=]`; an array element starting
/// with `}`, `[1,}`; a date-time whose time does not start with a digit, `1979-05-27Tx`), and
/// `nbgwd --check-config` aborted on such files instead of naming the line. Chasing toml++'s
/// assumptions one by one would not end; checking the grammar (toml.io/en/v1.0.0, its ABNF) ends
/// them all: a document that passes is well-formed, which is what toml++'s assumptions assume.
/// What is only semantic (a key defined twice, a date that does not exist, a number too large) is
/// left to TOMLKit, which reports it.
///
/// A valid document is never refused: DaemonConfigurationFuzzFindingsTests parse one with every
/// construct of the grammar.
struct TOMLPreflight {
    /// What is wrong where: the 1-based line and column, and the character found there (nil at
    /// the end of the text).
    struct Problem: Error, Equatable {
        var line: Int
        var column: Int
        var found: Unicode.Scalar?
        /// What the grammar allows there.
        var expected: String

        /// `U+003D`, or "end of file".
        var foundDescription: String {
            guard let found else { return "the end of the file" }
            let hex = String(found.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            return "\(String(found).escapedForDisplay()) (\(code))"
        }
    }

    /// The first syntax error of `text`, or nil when it is well-formed TOML 1.0.
    static func problem(in text: String) -> Problem? {
        var checker = TOMLPreflight(Array(text.unicodeScalars))
        do {
            try checker.document()
            return nil
        } catch {
            return error
        }
    }

    private let text: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    private init(_ text: [Unicode.Scalar]) {
        self.text = text
    }

    // MARK: Reading

    private var current: Unicode.Scalar? { index < text.count ? text[index] : nil }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        index + offset < text.count ? text[index + offset] : nil
    }

    private mutating func advance() {
        if text[index] == "\n" {
            line += 1
            lineStart = index + 1
        }
        index += 1
    }

    private func fail(_ expected: String) -> Problem {
        Problem(line: line, column: index - lineStart + 1, found: current, expected: expected)
    }

    private mutating func expect(_ scalar: Unicode.Scalar, _ what: String) throws(Problem) {
        guard current == scalar else { throw fail(what) }
        advance()
    }

    private mutating func skipBlanks() {
        while current == " " || current == "\t" { advance() }
    }

    /// A newline (LF or CR LF); false when there is none here.
    private mutating func newline() throws(Problem) -> Bool {
        if current == "\n" {
            advance()
            return true
        }
        if current == "\r" {
            advance()
            try expect("\n", "a line feed after the carriage return")
            return true
        }
        return false
    }

    /// `#` and the rest of the line (tab and printable characters only).
    private mutating func comment() throws(Problem) {
        guard current == "#" else { return }
        advance()
        while let scalar = current, scalar != "\n", scalar != "\r" {
            guard scalar == "\t" || !Self.isControl(scalar) else { throw fail("no control character in a comment") }
            advance()
        }
    }

    private mutating func endOfLine() throws(Problem) {
        skipBlanks()
        try comment()
        if current == nil { return }
        guard try newline() else { throw fail("the end of the line (or a comment)") }
    }

    // MARK: Document

    private mutating func document() throws(Problem) {
        while current != nil {
            skipBlanks()
            switch current {
            case "#", "\n", "\r":
                try endOfLine()
            case "[":
                try tableHeader()
                try endOfLine()
            case let scalar? where Self.isBareKey(scalar) || scalar == "\"" || scalar == "'":
                try keyValue()
                try endOfLine()
            case nil:
                return
            default:
                throw fail("a key, a [table] header, a comment or the end of the line")
            }
        }
    }

    private mutating func tableHeader() throws(Problem) {
        advance()
        let array = current == "["
        if array { advance() }
        skipBlanks()
        try key()
        skipBlanks()
        try expect("]", array ? "']]' to close the [[array of tables]] header" : "']' to close the [table] header")
        if array { try expect("]", "']]' to close the [[array of tables]] header") }
    }

    /// `key = value`, the key possibly dotted.
    private mutating func keyValue() throws(Problem) {
        try key()
        skipBlanks()
        try expect("=", "'=' after the key")
        skipBlanks()
        try value()
    }

    private mutating func key() throws(Problem) {
        while true {
            try simpleKey()
            skipBlanks()
            guard current == "." else { return }
            advance()
            skipBlanks()
        }
    }

    private mutating func simpleKey() throws(Problem) {
        switch current {
        case "\"":
            try basicString()
        case "'":
            try literalString()
        case let scalar? where Self.isBareKey(scalar):
            while let next = current, Self.isBareKey(next) { advance() }
        default:
            throw fail("a key: letters, digits, '_' or '-', or a quoted \"key\"")
        }
    }

    // MARK: Values

    private mutating func value() throws(Problem) {
        switch current {
        case "\"":
            if peek(1) == "\"", peek(2) == "\"" { try multilineBasicString() } else { try basicString() }
        case "'":
            if peek(1) == "'", peek(2) == "'" { try multilineLiteralString() } else { try literalString() }
        case "[":
            try array()
        case "{":
            try inlineTable()
        case "t":
            try word("true")
        case "f":
            try word("false")
        case "i", "n":
            try word(current == "i" ? "inf" : "nan")
        case "+", "-":
            advance()
            switch current {
            case "i": try word("inf")
            case "n": try word("nan")
            default: try decimalNumber()
            }
        case let scalar? where Self.isDigit(scalar):
            if Self.isDigit(scalar), peek(1).map(Self.isDigit) == true, peek(2).map(Self.isDigit) == true,
                peek(3).map(Self.isDigit) == true, peek(4) == "-"
            {
                try dateTime()
            } else if Self.isDigit(scalar), peek(1).map(Self.isDigit) == true, peek(2) == ":" {
                try time()
            } else if scalar == "0", let base = peek(1), base == "x" || base == "o" || base == "b" {
                advance()
                advance()
                let digit: (Unicode.Scalar) -> Bool =
                    switch base {
                    case "x": Self.isHexDigit
                    case "o": { ("0"..."7").contains($0) }
                    default: { $0 == "0" || $0 == "1" }
                    }
                try digits(digit, "a digit of the number")
            } else {
                try decimalNumber()
            }
        default:
            throw fail("a value: a string, a number, true or false, a date, an [array] or an { inline table }")
        }
    }

    private mutating func word(_ word: String) throws(Problem) {
        for scalar in word.unicodeScalars {
            try expect(scalar, "\(word)")
        }
    }

    /// Digits with single underscores between them (at least one digit).
    private mutating func digits(_ isDigit: (Unicode.Scalar) -> Bool, _ what: String) throws(Problem) {
        guard let first = current, isDigit(first) else { throw fail(what) }
        advance()
        while let scalar = current {
            if scalar == "_" {
                advance()
                guard let next = current, isDigit(next) else { throw fail("a digit after '_'") }
            } else if !isDigit(scalar) {
                return
            }
            advance()
        }
    }

    /// An integer or a float, after any sign: no leading zero, a fraction, an exponent.
    private mutating func decimalNumber() throws(Problem) {
        if current == "0", peek(1).map(Self.isDigit) == true || peek(1) == "_" {
            throw fail("no leading zero in a decimal number")
        }
        try digits(Self.isDigit, "a digit")
        if current == "." {
            advance()
            try digits(Self.isDigit, "a digit after the decimal point")
        }
        if current == "e" || current == "E" {
            advance()
            if current == "+" || current == "-" { advance() }
            try digits(Self.isDigit, "a digit of the exponent")
        }
    }

    private mutating func fixedDigits(_ count: Int) throws(Problem) {
        for _ in 0..<count {
            guard let scalar = current, Self.isDigit(scalar) else { throw fail("a digit of the date or time") }
            advance()
        }
    }

    /// `1979-05-27`, then optionally `T07:32:00[.frac]` (or `t`, or a space) and an offset.
    private mutating func dateTime() throws(Problem) {
        try fixedDigits(4)
        try expect("-", "'-' in the date")
        try fixedDigits(2)
        try expect("-", "'-' in the date")
        try fixedDigits(2)
        let delimiter = current
        let spaceThenTime = delimiter == " " && peek(1).map(Self.isDigit) == true
        guard delimiter == "T" || delimiter == "t" || spaceThenTime else { return }
        advance()
        try time()
        switch current {
        case "Z", "z":
            advance()
        case "+", "-":
            advance()
            try fixedDigits(2)
            try expect(":", "':' in the time offset")
            try fixedDigits(2)
        default:
            break
        }
    }

    /// `07:32:00` with optional fractional seconds.
    private mutating func time() throws(Problem) {
        try fixedDigits(2)
        try expect(":", "':' in the time")
        try fixedDigits(2)
        try expect(":", "':' in the time")
        try fixedDigits(2)
        if current == "." {
            advance()
            try fixedDigits(1)
            while let scalar = current, Self.isDigit(scalar) { advance() }
        }
    }

    /// Blanks, newlines and comments between the elements of a multi-line array.
    private mutating func skipArrayFiller() throws(Problem) {
        while true {
            skipBlanks()
            if current == "#" {
                try comment()
            } else if !(try newline()) {
                return
            }
        }
    }

    private mutating func array() throws(Problem) {
        advance()
        try skipArrayFiller()
        while current != "]" {
            try value()
            try skipArrayFiller()
            guard current == "," else { break }
            advance()
            try skipArrayFiller()
        }
        try expect("]", "',' or ']' in the array")
    }

    /// `{ key = value, … }` on one line, without a trailing comma.
    private mutating func inlineTable() throws(Problem) {
        advance()
        skipBlanks()
        if current == "}" {
            advance()
            return
        }
        while true {
            try keyValue()
            skipBlanks()
            if current == "}" {
                advance()
                return
            }
            try expect(",", "',' or '}' in the inline table (on one line)")
            skipBlanks()
        }
    }

    // MARK: Strings

    private mutating func escape() throws(Problem) {
        advance()
        switch current {
        case "\"", "\\", "b", "f", "n", "r", "t":
            advance()
        case "u", "U":
            let count = current == "u" ? 4 : 8
            advance()
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let scalar = current, Self.isHexDigit(scalar) else { throw fail("a hex digit of the \\u escape") }
                value = value << 4 | UInt32(Int(String(scalar), radix: 16)!)
                advance()
            }
            guard Unicode.Scalar(value) != nil else { throw fail("a Unicode scalar value in the \\u escape") }
        default:
            throw fail("an escape: \\\" \\\\ \\b \\f \\n \\r \\t \\uXXXX or \\UXXXXXXXX")
        }
    }

    private mutating func basicString() throws(Problem) {
        advance()
        while true {
            switch current {
            case "\"":
                advance()
                return
            case "\\":
                try escape()
            case let scalar? where scalar == "\t" || !Self.isControl(scalar):
                advance()
            default:
                throw fail("the closing '\"' on the same line (no control character in a string)")
            }
        }
    }

    private mutating func literalString() throws(Problem) {
        advance()
        while true {
            switch current {
            case "'":
                advance()
                return
            case let scalar? where scalar == "\t" || !Self.isControl(scalar):
                advance()
            default:
                throw fail("the closing \"'\" on the same line (no control character in a string)")
            }
        }
    }

    /// `"""…"""`: newlines allowed, `\` at the end of a line trims, up to two quotes before the
    /// closing three.
    private mutating func multilineBasicString() throws(Problem) {
        advance()
        advance()
        advance()
        while true {
            switch current {
            case "\"" where peek(1) == "\"" && peek(2) == "\"":
                advance()
                advance()
                advance()
                // Up to two more quotes belong to the content.
                if current == "\"" { advance() }
                if current == "\"" { advance() }
                return
            case "\\":
                var ahead = 1
                while peek(ahead) == " " || peek(ahead) == "\t" { ahead += 1 }
                if peek(ahead) == "\n" || (peek(ahead) == "\r" && peek(ahead + 1) == "\n") {
                    advance()
                    skipBlanks()
                } else {
                    try escape()
                }
            case "\n", "\r":
                _ = try newline()
            case let scalar? where scalar == "\t" || !Self.isControl(scalar):
                advance()
            default:
                throw fail("the closing '\"\"\"' (no control character in a string)")
            }
        }
    }

    private mutating func multilineLiteralString() throws(Problem) {
        advance()
        advance()
        advance()
        while true {
            switch current {
            case "'" where peek(1) == "'" && peek(2) == "'":
                advance()
                advance()
                advance()
                if current == "'" { advance() }
                if current == "'" { advance() }
                return
            case "\n", "\r":
                _ = try newline()
            case let scalar? where scalar == "\t" || !Self.isControl(scalar):
                advance()
            default:
                throw fail("the closing \"'''\" (no control character in a string)")
            }
        }
    }

    // MARK: Characters

    static func isBareKey(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F: true
        default: false
        }
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        isDigit(scalar) || ("a"..."f").contains(scalar) || ("A"..."F").contains(scalar)
    }

    /// TOML's control characters: U+0000–U+001F and U+007F.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || scalar.value == 0x7F }
}
