/// Decides what a framed line is: a pure function of the line, the URC table and the in-flight
/// command's ``ATResponseExpectation`` (nil when nothing is in flight).
///
/// Checks, in order (the first that applies wins):
/// 1. **Prompt**: the trimmed line equals the awaited prompt (`DOWNLOAD`, or a `>` that arrived
///    with a terminator after all).
/// 2. **Echo**: the line equals the command or payload text (case-insensitive). Echo is recognised
///    whatever the session believes about `ATE0`, because a modem that rebooted mid-session is back
///    to `E1` (V.250 default) and `ATE0` itself is still echoed.
/// 3. **Final result** (``ATFinalResult/init(line:)``): completes the in-flight command, or is an
///    ``ATLineClass/unsolicitedFinal(_:)`` when nothing is in flight.
/// 4. **Expected information line**: the line's name (`+CEREG` in `+CEREG: 1,5`) is one the command
///    answers with. Names that are also URCs are resolved by shape when the table gives a
///    ``ATURCPattern/readResponseSettingRange`` (3GPP TS 27.007 §10.1.22: the `AT+CEREG?` read
///    response is `+CEREG: <n>,<stat>[,...]`, the URC is `+CEREG: <stat>[,...]`): with the read
///    form in flight, a line whose first field is an integer `<n>` in range and whose second field
///    is an unquoted integer `<stat>` is the response; anything else (`+CEREG: 5`,
///    `+CEREG: 1,"1A2B",...`) is the URC. With the test form (`=?`) in flight the line is the
///    response; with a set or action form it is the URC (set commands print no `+CEREG:` lines).
/// 5. **Table URC**: a pattern of the ``ATURCTable`` matches.
/// 6. **Unrecognised result code**: the line starts with `+`, `%`, `^`, `#`, `$` or `*` and a name
///    the command does not claim: extended result codes always carry the name of their command
///    (27.007 §4.2), so it is somebody else's: an ``ATURC`` with ``ATURC/isRecognised`` false.
/// 7. **Bare text**: information if a command is in flight and
///    ``ATResponseExpectation/allowsBareText``, otherwise ``ATLineClass/unsolicitedText(_:)``.
public struct ATLineClassifier: Sendable, Hashable {
    /// The URC patterns (dialect-specific).
    public var urcTable: ATURCTable

    public init(urcTable: ATURCTable = .ts27007Baseline) {
        self.urcTable = urcTable
    }

    /// Classifies one line. See the type documentation for the rules.
    public func classify(_ rawLine: String, pending: ATResponseExpectation?) -> ATLineClass {
        let line = rawLine.trimmingSpaces()
        guard !line.isEmpty else { return .unsolicitedText("") }

        if let pending {
            if let prompt = pending.prompt, !prompt.text.trimmingSpaces().isEmpty,
                line == prompt.text.trimmingSpaces()
            {
                return .prompt(prompt)
            }
            if pending.echoes.contains(where: { $0.trimmingSpaces().equalsIgnoringCase(line) }) {
                return .echo
            }
        }

        if let final = ATFinalResult(line: line) {
            return pending == nil ? .unsolicitedFinal(final) : .final(final)
        }

        let name = Self.resultName(of: line)
        if let pending, let name, pending.prefixes.contains(name) {
            guard let range = urcTable.pattern(named: name)?.readResponseSettingRange else {
                return .information(line)
            }
            if pending.testPrefixes.contains(name) {
                return .information(line)
            }
            if pending.readPrefixes.contains(name), Self.hasReadResponseShape(line, name: name, settings: range) {
                return .information(line)
            }
            return .urc(ATURC(name: name, line: line))
        }

        if let pattern = urcTable.match(line) {
            return .urc(ATURC(name: pattern.key, line: line))
        }
        if let name {
            return .urc(ATURC(name: name, line: line, isRecognised: false))
        }
        if let pending, pending.allowsBareText {
            return .information(line)
        }
        return .unsolicitedText(line)
    }

    /// The result-code name of a line starting with an extended-syntax symbol: the text before the
    /// first colon (`+CEREG`, `+APP PDP`), or the whole line if it has none (`^SYSSTART`).
    static func resultName(of line: String) -> String? {
        guard let first = line.first, ATCommandSyntax.extendedSymbols.contains(first) else { return nil }
        guard let colon = line.firstIndex(of: ":") else { return line }
        let name = line[..<colon].trimmingSpaces()
        return name.count > 1 ? name : nil
    }

    /// `<n>,<stat>[,...]`: first field an integer within `settings`, second an unquoted integer.
    static func hasReadResponseShape(_ line: String, name: String, settings: ClosedRange<Int>) -> Bool {
        var parameters = Substring(line.dropFirst(name.count))
        guard parameters.hasPrefix(":") else { return false }
        parameters = parameters.dropFirst()
        let fields = parameters.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
            .map { $0.trimmingSpaces() }
        guard fields.count >= 2, let setting = Int(fields[0]), settings.contains(setting) else { return false }
        return !fields[1].isEmpty && fields[1].allSatisfy(\.isASCIIDigit)
    }
}

extension String {
    fileprivate func equalsIgnoringCase(_ other: String) -> Bool {
        self.utf8.count == other.utf8.count && self.uppercased() == other.uppercased()
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
