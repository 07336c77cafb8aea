/// Why ``ATCommandLine`` could not read a line, and where.
///
/// The description never quotes the line, and shows the offending character only when it is
/// punctuation: the line may hold a PIN (`AT+CPIN="1234`), and this message is logged.
public struct ATCommandLineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public enum Problem: Sendable, Hashable {
        /// The line does not start with `AT`.
        case missingPrefix
        /// A control character (CR, LF, tab, Ctrl-Z…): the session refuses such a line too.
        case controlCharacter
        /// A character outside ASCII outside a string constant.
        case nonASCII
        /// A `"` opens a string that is not closed.
        case unterminatedString
        /// Something other than `,` or `;` after a string's closing quote.
        case textAfterString
        /// A `"` in the middle of an unquoted value.
        case quoteInValue
        /// An extended-command symbol (`+`, `%`, `^`…) not followed by a name starting with a letter.
        case missingName
        /// `&` not followed by a letter.
        case missingLetter
        /// `S` without its parameter number.
        case missingParameterNumber
        /// Another command right after an extended command (`AT+CSQ+CFUN=0`), without the `;` V.250
        /// requires there.
        case missingSemicolon
        /// Something after a read (`?`) or test (`=?`) form other than `;`.
        case textAfterQuery
        /// A character no command starts with, or that has no place where it stands.
        case unexpected(Character)
    }

    public var problem: Problem
    /// The column where it was found, from 1 (in Unicode scalars: characters, for an ASCII line).
    public var column: Int

    public init(_ problem: Problem, column: Int) {
        self.problem = problem
        self.column = column
    }

    public var description: String {
        let what: String
        switch problem {
        case .missingPrefix: what = "the line does not start with AT"
        case .controlCharacter: what = "a control character (CR, LF, tab…), which no command line may hold"
        case .nonASCII: what = "a character outside ASCII outside a quoted string"
        case .unterminatedString: what = "a quoted string that is not closed"
        case .textAfterString: what = "text after a quoted string, where a comma or a `;` belongs"
        case .quoteInValue: what = "a quote inside an unquoted value"
        case .missingName: what = "a command symbol not followed by a name"
        case .missingLetter: what = "`&` not followed by a letter"
        case .missingParameterNumber: what = "`S` without its parameter number"
        case .missingSemicolon: what = "a command right after an extended command, without `;`"
        case .textAfterQuery: what = "text after `?` or `=?`, where only `;` or the end may follow"
        case .unexpected(let character):
            let shown =
                character.isASCII && character.isPunctuationOrSymbol ? "`\(character)`" : "a letter or digit"
            what = "\(shown) where no command starts or continues"
        }
        return "column \(column): \(what)"
    }
}

extension Character {
    fileprivate var isPunctuationOrSymbol: Bool { isPunctuation || isSymbol }
}
