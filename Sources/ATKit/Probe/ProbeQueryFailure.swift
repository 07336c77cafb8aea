/// Why an optional query of the probe gave nothing; the field it feeds is reported as null and the
/// reason goes to ``ModemProbeReport/notes``.
enum ProbeQueryFailure: Error, Sendable, CustomStringConvertible {
    /// The modem answered with a failure code.
    case failed(ATFinalResult)
    /// No final result within the query timeout.
    case timedOut(Duration)
    /// `OK`, but lines of the wrong shape.
    case unparseable(ATResponseParseError)
    /// The command was not sent: the session's resynchronisation probe went unanswered.
    case unresponsive(Int)

    var description: String {
        switch self {
        case .failed(let final): "answered \(final)"
        case .timedOut(let after): "no answer within \(after)"
        case .unresponsive(let attempts): "not sent: \(attempts) resynchronisation probe(s) unanswered"
        case .unparseable(let error):
            "unexpected answer \(error.lines.map(\.debugDescription).joined(separator: ", ")) (\(error.reason))"
        }
    }

    /// The final result, for ``failed(_:)``.
    var final: ATFinalResult? {
        if case .failed(let final) = self { final } else { nil }
    }
}
