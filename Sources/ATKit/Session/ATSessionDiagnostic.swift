/// Something an ``ATSession`` noticed that is neither a response nor a URC; for logs.
public enum ATSessionDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// A final result arrived with no command in flight and none unanswered (BC95's boot `OK`).
    case unsolicitedFinal(ATFinalResult)
    /// A final result attributed to a command that had already timed out or been cancelled.
    case lateFinal(command: String, final: ATFinalResult)
    /// An information line of a command that had already timed out or been cancelled, dropped.
    case lateLine(command: String, line: String)
    /// A line that is neither a URC nor part of a response (boot banner text, junk).
    case unsolicitedText(String)
    /// A line longer than the framer's limit was cut.
    case truncatedLine(ATLine)
    /// A URC was dropped because ``ATSession/urcs`` was not consumed fast enough.
    case urcDropped(ATURC)
    /// A command timed out; the session will resynchronise before the next command.
    case timedOut(command: String, after: Duration)
    /// A resynchronisation probe got no answer.
    case probeTimedOut(command: String, attempt: Int)
    /// The session is synchronised again after `command` timed out or was cancelled.
    case resynchronised(afterCommand: String)

    public var description: String {
        switch self {
        case .unsolicitedFinal(let final): "unsolicited final result \(final) ignored"
        case .lateFinal(let command, let final): "late final result \(final) attributed to \(command)"
        case .lateLine(let command, let line): "late line \(line.debugDescription) of \(command) dropped"
        case .unsolicitedText(let text): "unsolicited text \(text.debugDescription)"
        case .truncatedLine(let line): "line cut: \(line)"
        case .urcDropped(let urc): "URC dropped (nobody reading): \(urc)"
        case .timedOut(let command, let after): "\(command) timed out after \(after)"
        case .probeTimedOut(let command, let attempt): "resync probe \(command) (attempt \(attempt)) got no answer"
        case .resynchronised(let command): "resynchronised after \(command)"
        }
    }
}
