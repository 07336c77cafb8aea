/// What a line of modem output is, given what the session is waiting for.
public enum ATLineClass: Sendable, Hashable {
    /// The final result code of the in-flight command.
    case final(ATFinalResult)
    /// An information line (intermediate result) of the in-flight command, trimmed.
    case information(String)
    /// An unsolicited result code, in flight or not.
    case urc(ATURC)
    /// The modem echoing the command (or payload) back.
    case echo
    /// The data prompt the in-flight command waits for, received as a full line.
    case prompt(ATPrompt)
    /// A final result code while no command is in flight: BC95 ends its boot banner with `OK`, and a
    /// command that timed out may still answer. It must never complete a later command.
    case unsolicitedFinal(ATFinalResult)
    /// Text that is neither a URC nor part of a response (boot banner lines such as `Boot: Unsigned`,
    /// MT2625 BROM text, junk), trimmed.
    case unsolicitedText(String)
}
