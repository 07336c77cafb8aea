/// A command line read the way ITU-T V.250 §5 describes it: the `AT` prefix, then commands.
///
/// Basic commands (§5.3.1) are a letter, or `&` and a letter, with an optional number, and follow
/// each other directly (`ATE0V1Q0`); `S` parameters (§5.3.2) are `S3=13`, `S3?`, `S3=?`; `D` takes
/// the rest of the line up to a `;` as its dial string. Extended commands (§5.4) are a symbol (`+`,
/// or a vendor's `%`, `^`, `#`, `$`, `*`) and a name, in four forms (`+CFUN` action, `+CFUN=1` set,
/// `+CFUN?` read, `+CFUN=?` test), and end at a `;` or at the end of the line; a basic command may
/// run straight into an extended one (`ATE0+CMEE=1`). A module ignores spaces outside string
/// constants (§5.1), so `AT + CFUN = 4` is `AT+CFUN=4`: names and unquoted values are read without
/// their spaces.
///
/// ```swift
/// let line = try ATCommandLine("at+csq ; +CFUN = 4,0")
/// line.commands.map(\.name)                // ["+CSQ", "+CFUN"]
/// line.commands[1].form                    // .set
/// line.commands[1].arguments[0].integer    // 4
/// try ATCommandLine("ATE1V0").commands.map(\.name)   // ["E", "V"]
/// try ATCommandLine("AT+CPIN=\"1234")      // throws: a string that is not closed
/// ```
///
/// Stricter than a module where the two might read a line differently: a line it cannot read is an
/// ``ATCommandLineError`` (never a trap), so a caller that decides what a line does
/// (`SupervisedCommandPolicy`, ``ATCommandRedaction``) can fail closed. ``ATResponseExpectation``
/// keeps its own lenient reading: it only guesses which answer lines belong to a command, and must
/// do so for any line.
public struct ATCommandLine: Sendable, Hashable {
    /// The line as given.
    public let text: String
    /// Its commands in order; none for a bare `AT`.
    public let commands: [Command]

    /// Reads `text`. Spaces before the `AT` and around its commands are allowed; the prefix itself
    /// is `AT` in any case.
    ///
    /// - Throws: ``ATCommandLineError`` saying what could not be read and where.
    public init(_ text: String) throws(ATCommandLineError) {
        var parser = Parser(text)
        self.commands = try parser.commandLine()
        self.text = text
    }
}

extension ATCommandLine {
    /// One command of a line.
    public struct Command: Sendable, Hashable {
        /// Which syntax the command follows.
        public enum Kind: Sendable, Hashable {
            /// A V.250 basic command: `E`, `V`, `Z`, `I`, `D`, `&F`.
            case basic
            /// An S parameter: `S3`.
            case sParameter
            /// An extended command, standard or vendor: `+CFUN`, `+QRST`, `%XSYSTEMMODE`, `^SYSCFG`.
            case extended
        }

        /// What the command asks for.
        public enum Form: Sendable, Hashable {
            /// `AT+CGMI`, `ATZ`, `ATE1`, `ATD*99#` (a basic command's number is its argument).
            case action
            /// `AT+CFUN=1`, `ATS3=13`.
            case set
            /// `AT+CFUN?`, `ATS3?`.
            case read
            /// `AT+CFUN=?`, `ATS3=?`.
            case test
        }

        public var kind: Kind
        /// Upper case, spaces dropped: `E`, `&F`, `D`, `S3` (the number without leading zeros),
        /// `+CFUN`, `%XSYSTEMMODE`.
        public var name: String
        public var form: Form
        /// The command as written in the line, from its first character (`E`, `&`, `S`, `+`) to its
        /// last argument; the `;` that ends it excluded.
        public var source: String
        /// Its arguments as written: what follows the `=` of a set form, a basic command's number,
        /// a dial string; empty when there are none.
        public var argumentText: String
        /// The arguments, comma-separated in a set form (empty ones kept in place, none for a blank
        /// argument text); a basic command's number or an S parameter's value as one argument.
        public var arguments: [Argument]
        /// Where ``source`` is in the line's text.
        public var range: Range<String.Index>
        /// Where ``argumentText`` is in the line's text (an empty range where it would start when
        /// there is none).
        public var argumentRange: Range<String.Index>
    }

    /// One argument of a command.
    public struct Argument: Sendable, Hashable {
        /// A string constant's characters between its quotes, as written (`\22` escapes are not
        /// decoded); anything else without its spaces (`4`, `0x1F`, `AUTOCONNECT`).
        public var value: String
        /// Whether it is a string constant (`"IP"`).
        public var isString: Bool
        /// Where it is in the line's text: after the `=` or the comma before it, up to the comma or
        /// the end of the command after it, spaces and quotes included.
        public var range: Range<String.Index>

        /// The value as a V.250 decimal numeric constant (digits only, leading zeros allowed), or nil
        /// for a string, an empty value, anything else or a number too large for an `Int`.
        public var integer: Int? {
            guard !isString, !value.isEmpty, value.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(value)
        }
    }
}
