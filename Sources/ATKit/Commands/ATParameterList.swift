/// The comma-separated parameters of an information line (3GPP TS 27.007 §4.2):
/// `5,1,"0A0B","01020304",9,,,"00100110","01011111"`.
///
/// Commas inside double quotes do not split; spaces around fields are dropped (ModemManager has
/// seen `+CEREG: 2,1, 1F00, 79D903 ,7`); an empty field stays in place so positions keep their
/// meaning (`,,` in a `+CEREG` with n=4 marks the absent cause fields).
struct ATParameterList: Sendable, Hashable {
    enum Field: Sendable, Hashable {
        case empty
        case quoted(String)
        case bare(String)

        /// The text without quotes; nil when empty.
        var text: String? {
            switch self {
            case .empty: nil
            case .quoted(let text): text
            case .bare(let text): text
            }
        }

        var isQuoted: Bool {
            if case .quoted = self { true } else { false }
        }
    }

    let fields: [Field]

    init(_ text: String) {
        var fields: [Field] = []
        var current = ""
        var quoted = false
        var sawQuote = false
        for character in text {
            if character == "\"" {
                quoted.toggle()
                sawQuote = true
                current.append(character)
            } else if character == "," && !quoted {
                fields.append(Self.field(current, sawQuote: sawQuote))
                current = ""
                sawQuote = false
            } else {
                current.append(character)
            }
        }
        fields.append(Self.field(current, sawQuote: sawQuote))
        if fields == [.empty] { fields = [] }
        self.fields = fields
    }

    private static func field(_ raw: String, sawQuote: Bool) -> Field {
        let trimmed = raw.trimmingSpaces()
        if trimmed.isEmpty { return .empty }
        if sawQuote, trimmed.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") {
            return .quoted(String(trimmed.dropFirst().dropLast()))
        }
        return .bare(trimmed)
    }

    var count: Int { fields.count }

    subscript(index: Int) -> Field {
        index >= 0 && index < fields.count ? fields[index] : .empty
    }

    /// The field as a decimal integer (quoted or not); nil when empty or not a number.
    func int(_ index: Int) -> Int? {
        self[index].text.flatMap { Int($0.trimmingSpaces()) }
    }

    /// The field's text without quotes; nil when empty.
    func string(_ index: Int) -> String? {
        self[index].text
    }
}

extension ATResponse {
    /// The parameters of the first line named `name`, with or without the space after the colon.
    func parameters(for name: String) throws(ATResponseParseError) -> ATParameterList {
        guard let value = values(for: name).first else {
            throw ATResponseParseError(self, "expected a \(name): line")
        }
        return ATParameterList(value)
    }

    /// The information lines that are not named result codes, trimmed, for the bare-text answers
    /// of `+CGMI`, `+CGMM`, `+CGSN`, `+CIMI` and SIMCom `+CCID`.
    var bareLines: [String] {
        lines.filter { !$0.isEmpty }
    }
}
