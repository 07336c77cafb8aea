/// The parts of a command line that matter for classifying its response (3GPP TS 27.007 §4.1,
/// ITU-T V.250 basic and extended syntax).
///
/// `AT+CEREG?` is the read form of `+CEREG`; `AT+CEREG=?` the test form; `AT+CEREG=2` the set form;
/// `AT+CGMI` the action (execute) form; `ATE0`, `ATI`, `ATS3?` are basic commands. Several commands
/// may share one line, separated by `;` (`AT+CIMI;+CGSN=1`), and basic commands may run straight
/// into an extended one (`ATE0+CMEE=1`).
struct ATCommandSyntax: Sendable, Hashable {
    enum Form: Sendable, Hashable {
        case basic
        case action
        case read
        case test
        case set
    }

    struct Part: Sendable, Hashable {
        /// The extended command name, upper-cased with its leading symbol (`+CEREG`); nil for basic.
        var name: String?
        var form: Form
    }

    /// The characters that start an extended (or vendor extended) command or result name.
    static let extendedSymbols: Set<Character> = ["+", "%", "^", "#", "$", "*"]

    let parts: [Part]

    init(_ commandLine: String) {
        var body = Substring(commandLine.trimmingSpaces())
        if body.uppercased().hasPrefix("AT") {
            body = body.dropFirst(2)
        }
        var parts: [Part] = []
        for segment in Self.split(body) {
            var rest = Substring(segment.trimmingSpaces())
            if rest.isEmpty { continue }
            if let first = rest.first, !Self.extendedSymbols.contains(first) {
                // Basic command(s), possibly followed directly by an extended command.
                parts.append(Part(name: nil, form: .basic))
                guard let start = rest.firstIndex(where: { Self.extendedSymbols.contains($0) }) else { continue }
                rest = rest[start...]
            }
            let nameEnd = rest.dropFirst().firstIndex { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }
            let name = String(rest[..<(nameEnd ?? rest.endIndex)]).uppercased()
            let tail = rest[(nameEnd ?? rest.endIndex)...]
            parts.append(Part(name: name, form: Self.form(of: tail)))
        }
        self.parts = parts
    }

    private static func form(of tail: Substring) -> Form {
        if tail.hasPrefix("=?") { return .test }
        if tail.hasPrefix("?") { return .read }
        if tail.hasPrefix("=") { return .set }
        return .action
    }

    /// Splits on `;` outside double quotes.
    private static func split(_ body: Substring) -> [Substring] {
        var segments: [Substring] = []
        var start = body.startIndex
        var quoted = false
        var index = body.startIndex
        while index < body.endIndex {
            let character = body[index]
            if character == "\"" {
                quoted.toggle()
            } else if character == ";" && !quoted {
                segments.append(body[start..<index])
                start = body.index(after: index)
            }
            index = body.index(after: index)
        }
        segments.append(body[start...])
        return segments
    }
}
