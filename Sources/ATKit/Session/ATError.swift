/// Why ``ATSession/send(_:)`` did not return a successful response. Every case names the command
/// (when there is one) and the port.
public enum ATError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No final result arrived within the command's timeout. The session then resynchronises before
    /// the next command, so a late final result is never credited to another command
    /// (see ``ATSession``).
    case timeout(command: String, port: String, after: Duration)
    /// The modem answered with a failure code (`ERROR`, `+CME ERROR: <n>`, `NO CARRIER`, ...).
    /// `lines` holds any information lines that came before it.
    case commandFailed(command: String, port: String, final: ATFinalResult, lines: [String])
    /// The transport closed (unplug, EOF, I/O error) while the command was queued or in flight, or
    /// before it was sent.
    case transportClosed(command: String?, port: String, reason: ATTransportError.CloseReason)
    /// ``ATSession/close()`` was called.
    case sessionClosed(command: String?, port: String)
    /// After a timeout the modem did not answer the resynchronisation probe `attempts` times, so the
    /// queued command was not sent.
    case unresponsive(command: String, port: String, attempts: Int)
    /// The command line cannot be sent as is.
    case invalidCommand(command: String, reason: String)

    /// The command concerned, if any.
    public var command: String? {
        switch self {
        case .timeout(let command, _, _), .commandFailed(let command, _, _, _), .unresponsive(let command, _, _),
            .invalidCommand(let command, _):
            command
        case .transportClosed(let command, _, _), .sessionClosed(let command, _):
            command
        }
    }

    /// The final result, for ``commandFailed(command:port:final:lines:)``.
    public var finalResult: ATFinalResult? {
        if case .commandFailed(_, _, let final, _) = self { final } else { nil }
    }

    public var description: String {
        switch self {
        case .timeout(let command, let port, let after):
            "\(command) on \(port): no final result within \(after)"
        case .commandFailed(let command, let port, let final, _):
            "\(command) on \(port) failed: \(final)"
        case .transportClosed(let command, let port, let reason):
            "\(command.map { "\($0) on " } ?? "")\(port): port closed (\(reason))"
        case .sessionClosed(let command, let port):
            "\(command.map { "\($0) on " } ?? "")\(port): AT session closed"
        case .unresponsive(let command, let port, let attempts):
            "\(command) on \(port) not sent: modem did not answer \(attempts) resynchronisation probes after a timeout"
        case .invalidCommand(let command, let reason):
            "invalid AT command \(command.debugDescription): \(reason)"
        }
    }
}
