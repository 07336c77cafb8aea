extension ATCommandLine {
    /// Reads a line one Unicode scalar at a time (ITU-T V.250 §5.1–§5.4; see ``ATCommandLine``).
    ///
    /// Why scalars and not characters: the ranges it hands out must be exact, and a grapheme can join
    /// a quote to the character after it. Everything outside a string constant is ASCII, or the line
    /// is refused.
    struct Parser {
        let text: String
        private let scalars: String.UnicodeScalarView
        private var index: String.Index
        /// The column of `index`, from 1.
        private var column = 1

        init(_ text: String) {
            self.text = text
            self.scalars = text.unicodeScalars
            self.index = scalars.startIndex
        }

        /// The whole line: prefix, then commands separated as V.250 wants.
        mutating func commandLine() throws(ATCommandLineError) -> [Command] {
            try rejectControlCharacters()
            skipSpaces()
            guard take(letter: "A"), take(letter: "T") else { throw failure(.missingPrefix) }
            var commands: [Command] = []
            // An extended command and a dial string end only at a `;` or the end of the line
            // (§5.4.1), which their readers check; a basic command may be followed by anything.
            while true {
                skipSpaces()
                guard let scalar = peek else { break }
                if scalar == ";" {
                    advance()
                    continue
                }
                commands.append(try command())
            }
            return commands
        }

        // MARK: Commands

        private mutating func command() throws(ATCommandLineError) -> Command {
            guard let scalar = peek else { throw failure(.unexpected(" ")) }
            if ATCommandSyntax.extendedSymbols.contains(Character(scalar)) { return try extended() }
            switch Self.upper(scalar) {
            case "S": return try sParameter()
            case "D": return try dial()
            case "&": return try basic()
            case "A"..."Z": return try basic()
            default: throw unexpected(scalar)
            }
        }

        /// `E`, `E1`, `&F0`, `I`, `E?`: a letter (after `&` for the ampersand set) and its number.
        private mutating func basic() throws(ATCommandLineError) -> Command {
            let start = index
            var name = ""
            if peek == "&" {
                advance()
                skipSpaces()
                name = "&"
            }
            guard let letter = peek, Self.isLetter(letter) else { throw failure(.missingLetter) }
            name.unicodeScalars.append(Self.upper(letter))
            advance()
            let nameEnd = index
            var end = index
            let (digits, digitsRange) = self.digits()
            var form = Command.Form.action
            var arguments: [Argument] = []
            if let digitsRange {
                end = digitsRange.upperBound
                arguments = [Argument(value: digits, isString: false, range: digitsRange)]
            } else if lookingPastSpaces(at: "?") {
                // `ATE?`: some modules answer their setting. After a number (`ATE1?`) the `?` starts
                // no command and the line is refused.
                skipSpaces()
                advance()
                end = index
                form = .read
            }
            let argumentEnd = form == .read ? nameEnd : end
            return command(.basic, name, form, arguments, start..<end, nameEnd..<argumentEnd)
        }

        /// `S3=13`, `S3?`, `S3=?`, `S3` (V.250 §5.3.2).
        private mutating func sParameter() throws(ATCommandLineError) -> Command {
            let start = index
            advance()
            let (number, numberRange) = digits()
            guard let numberRange else { throw failure(.missingParameterNumber) }
            let trimmed = number.drop { $0 == "0" }
            let name = "S" + (trimmed.isEmpty ? "0" : trimmed)
            let afterNumber = numberRange.upperBound
            if lookingPastSpaces(at: "?") {
                skipSpaces()
                advance()
                return command(.sParameter, name, .read, [], start..<index, afterNumber..<afterNumber)
            }
            guard lookingPastSpaces(at: "=") else {
                // `ATS3` alone: selects the parameter on old modems; sets nothing.
                return command(.sParameter, name, .action, [], start..<afterNumber, afterNumber..<afterNumber)
            }
            skipSpaces()
            advance()
            let argumentStart = index
            if lookingPastSpaces(at: "?") {
                skipSpaces()
                advance()
                return command(.sParameter, name, .test, [], start..<index, argumentStart..<argumentStart)
            }
            let (value, valueRange) = digits()
            let end = valueRange?.upperBound ?? argumentStart
            let arguments = valueRange.map { [Argument(value: value, isString: false, range: $0)] } ?? []
            return command(.sParameter, name, .set, arguments, start..<end, argumentStart..<end)
        }

        /// `D` and its dial string: everything up to a `;` outside quotes, or the end of the line.
        /// What the string means is the module's business; it is only checked for closed quotes and
        /// ASCII outside them.
        private mutating func dial() throws(ATCommandLineError) -> Command {
            let start = index
            advance()
            let argumentStart = index
            var value = ""
            var openQuote: Int?
            var end = index
            while let scalar = peek, openQuote != nil || scalar != ";" {
                if scalar == "\"" { openQuote = openQuote == nil ? column : nil }
                if openQuote == nil, !scalar.isASCII { throw failure(.nonASCII) }
                let isSpace = openQuote == nil && scalar == " "
                if !isSpace { value.unicodeScalars.append(scalar) }
                advance()
                if !isSpace { end = index }
            }
            if let openQuote { throw ATCommandLineError(.unterminatedString, column: openQuote) }
            let arguments = value.isEmpty ? [] : [Argument(value: value, isString: false, range: argumentStart..<end)]
            return command(.basic, "D", .action, arguments, start..<end, argumentStart..<end)
        }

        /// `+CFUN`, `+CFUN=1,0`, `+CFUN?`, `+CFUN=?`, `%XSYSTEMMODE=1,0,0,0` (V.250 §5.4).
        private mutating func extended() throws(ATCommandLineError) -> Command {
            let start = index
            var name = ""
            if let symbol = peek { name.unicodeScalars.append(symbol) }
            advance()
            skipSpaces()
            guard let first = peek, Self.isLetter(first) else {
                if let other = peek, !other.isASCII { throw failure(.nonASCII) }
                throw failure(.missingName)
            }
            // V.250 §5.4.1: letters, digits and `!%-./:_`; spaces inside are ignored like anywhere
            // else outside a string (`AT+C FUN=0` is `+CFUN` to such a module).
            while true {
                if let scalar = peek, Self.isNameCharacter(scalar) {
                    name.unicodeScalars.append(Self.upper(scalar))
                    advance()
                } else if peek == " ", let next = nextPastSpaces, Self.isNameCharacter(next) {
                    skipSpaces()
                } else {
                    break
                }
            }
            let nameEnd = index
            if lookingPastSpaces(at: "?") {
                skipSpaces()
                advance()
                let end = index
                try expectQueryEnd()
                return command(.extended, name, .read, [], start..<end, nameEnd..<nameEnd)
            }
            guard lookingPastSpaces(at: "=") else {
                skipSpaces()
                switch peek {
                case nil, ";":
                    return command(.extended, name, .action, [], start..<nameEnd, nameEnd..<nameEnd)
                case let next? where next == "&" || ATCommandSyntax.extendedSymbols.contains(Character(next)):
                    throw failure(.missingSemicolon)
                case let next?:
                    throw unexpected(next)
                }
            }
            skipSpaces()
            advance()
            let argumentStart = index
            if lookingPastSpaces(at: "?") {
                skipSpaces()
                advance()
                let end = index
                try expectQueryEnd()
                return command(.extended, name, .test, [], start..<end, argumentStart..<argumentStart)
            }
            let arguments = try self.arguments()
            return command(.extended, name, .set, arguments, start..<index, argumentStart..<index)
        }

        /// After `?` or `=?`: only spaces, then `;` or the end.
        private mutating func expectQueryEnd() throws(ATCommandLineError) {
            let end = index
            let endColumn = column
            skipSpaces()
            if let scalar = peek, scalar != ";" { throw failure(.textAfterQuery) }
            index = end
            column = endColumn
        }

        // MARK: Arguments

        /// The comma-separated values of a set form, up to `;` or the end (V.250 §5.4.2.1); spaces
        /// outside quotes are dropped from a value.
        private mutating func arguments() throws(ATCommandLineError) -> [Argument] {
            var arguments: [Argument] = []
            while true {
                let start = index
                skipSpaces()
                var value = ""
                var isString = false
                if peek == "\"" {
                    isString = true
                    let openColumn = column
                    advance()
                    let valueStart = index
                    while let scalar = peek, scalar != "\"" { advance() }
                    guard peek == "\"" else {
                        throw ATCommandLineError(.unterminatedString, column: openColumn)
                    }
                    value = String(scalars[valueStart..<index])
                    advance()
                    skipSpaces()
                    if let scalar = peek, scalar != ",", scalar != ";" { throw failure(.textAfterString) }
                } else {
                    while let scalar = peek, scalar != ",", scalar != ";" {
                        switch scalar {
                        case " ": break
                        case "\"": throw failure(.quoteInValue)
                        case "=", "?": throw unexpected(scalar)
                        case _ where !scalar.isASCII: throw failure(.nonASCII)
                        default: value.unicodeScalars.append(scalar)
                        }
                        advance()
                    }
                }
                arguments.append(Argument(value: value, isString: isString, range: start..<index))
                guard peek == "," else { break }
                advance()
            }
            // `AT+CFUN=` (nothing after the `=`): no argument at all, not one empty one.
            if arguments.count == 1, !arguments[0].isString, arguments[0].value.isEmpty { return [] }
            return arguments
        }

        /// Decimal digits with spaces between them (`1 0` is `10` to a module that ignores spaces):
        /// the digits and where they are, first to last (nil when there are none). Spaces after the
        /// last digit are left for the caller.
        private mutating func digits() -> (String, Range<String.Index>?) {
            var digits = ""
            var first: String.Index?
            while true {
                if let scalar = peek, ("0"..."9").contains(scalar) {
                    if first == nil { first = index }
                    digits.unicodeScalars.append(scalar)
                    advance()
                } else if peek == " ", let next = nextPastSpaces, ("0"..."9").contains(next) {
                    skipSpaces()
                } else {
                    break
                }
            }
            return (digits, first.map { $0..<index })
        }

        // MARK: Scanning

        /// Any control character, wherever it is (inside quotes too): the first one's column.
        private func rejectControlCharacters() throws(ATCommandLineError) {
            var column = 1
            for scalar in scalars {
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
                    throw ATCommandLineError(.controlCharacter, column: column)
                }
                column += 1
            }
        }

        private var peek: Unicode.Scalar? {
            index < scalars.endIndex ? scalars[index] : nil
        }

        private mutating func advance() {
            index = scalars.index(after: index)
            column += 1
        }

        private mutating func skipSpaces() {
            while peek == " " { advance() }
        }

        /// The next scalar that is not a space (nothing consumed); nil at the end.
        private var nextPastSpaces: Unicode.Scalar? {
            var lookahead = index
            while lookahead < scalars.endIndex, scalars[lookahead] == " " {
                lookahead = scalars.index(after: lookahead)
            }
            return lookahead < scalars.endIndex ? scalars[lookahead] : nil
        }

        /// Whether the next scalar that is not a space is `scalar` (nothing consumed).
        private func lookingPastSpaces(at scalar: Unicode.Scalar) -> Bool {
            nextPastSpaces == scalar
        }

        /// Consumes `letter` in either case.
        private mutating func take(letter: Unicode.Scalar) -> Bool {
            guard let scalar = peek, Self.upper(scalar) == letter else { return false }
            advance()
            return true
        }

        private func failure(_ problem: ATCommandLineError.Problem) -> ATCommandLineError {
            ATCommandLineError(problem, column: column)
        }

        private func unexpected(_ scalar: Unicode.Scalar) -> ATCommandLineError {
            scalar.isASCII ? failure(.unexpected(Character(scalar))) : failure(.nonASCII)
        }

        private func command(
            _ kind: Command.Kind,
            _ name: String,
            _ form: Command.Form,
            _ arguments: [Argument],
            _ range: Range<String.Index>,
            _ argumentRange: Range<String.Index>
        ) -> Command {
            // Spaces before the `;` or the end belong to no command.
            var end = range.upperBound
            while end > range.lowerBound, scalars[scalars.index(before: end)] == " " {
                end = scalars.index(before: end)
            }
            let range = range.lowerBound..<end
            let argumentRange =
                argumentRange.lowerBound..<max(argumentRange.lowerBound, min(argumentRange.upperBound, end))
            return Command(
                kind: kind,
                name: name,
                form: form,
                source: String(scalars[range]),
                argumentText: String(scalars[argumentRange]),
                arguments: arguments,
                range: range,
                argumentRange: argumentRange
            )
        }

        private static func upper(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
            ("a"..."z").contains(scalar) ? Unicode.Scalar(scalar.value - 32)! : scalar
        }

        private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
            ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar)
        }

        private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
            isLetter(scalar) || ("0"..."9").contains(scalar) || "!%-./:_".unicodeScalars.contains(scalar)
        }
    }
}
