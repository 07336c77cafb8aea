/// What the in-flight command's response looks like: the context ``ATLineClassifier`` needs to
/// tell a command's own lines from URCs and noise.
///
/// Normally derived from the command text (``init(command:prefixes:allowsBareText:echoes:prompt:)``
/// with defaults), following 3GPP TS 27.007 §4.2: an extended command answers with information
/// lines named after itself (`+CEREG: ...` for `AT+CEREG?`).
public struct ATResponseExpectation: Sendable, Hashable {
    /// The command line as sent, without its terminator.
    public var command: String
    /// Names of information lines that belong to the response (`+CEREG`). Matching lines are the
    /// command's, even when the name is also a URC (`+CPIN: READY` after `AT+CPIN?`), except for the
    /// shape-checked names described in ``ATLineClassifier``.
    public var prefixes: [String]
    /// Names for which the command is the read form (`AT+CEREG?`).
    public var readPrefixes: [String]
    /// Names for which the command is the test form (`AT+CEREG=?`).
    public var testPrefixes: [String]
    /// Whether lines without a result-code name belong to the response. True for the bare-text
    /// answers of `AT+CGMI/CGMM/CGMR/CGSN/CIMI`, `ATI`, and any set or action command (`AT+NSOCR=...`
    /// answers `1`); false when every command on the line is a read or test form, whose answers are
    /// always `+NAME:` lines, so stray text (a boot banner) is not taken for the answer.
    public var allowsBareText: Bool
    /// Lines that are echo: the command itself (echo is on by default after every boot: V.250 `E1`)
    /// and, for prompt commands, the payload.
    public var echoes: [String]
    /// The data prompt still awaited, if any.
    public var prompt: ATPrompt?

    /// Derives the expectation from `command`; any argument given overrides the derived value.
    public init(
        command: String,
        prefixes: [String]? = nil,
        allowsBareText: Bool? = nil,
        echoes: [String]? = nil,
        prompt: ATPrompt? = nil
    ) {
        let syntax = ATCommandSyntax(command)
        let names = syntax.parts.compactMap(\.name)
        var unique: [String] = []
        for name in names where !unique.contains(name) {
            unique.append(name)
        }
        self.command = command
        self.prefixes = prefixes ?? unique
        self.readPrefixes = syntax.parts.filter { $0.form == .read }.compactMap(\.name)
        self.testPrefixes = syntax.parts.filter { $0.form == .test }.compactMap(\.name)
        self.allowsBareText =
            allowsBareText ?? (syntax.parts.isEmpty || syntax.parts.contains { $0.form != .read && $0.form != .test })
        self.echoes = echoes ?? [command.trimmingSpaces()]
        self.prompt = prompt
    }
}
