/// A successful response whose information lines do not have the shape the command documents.
///
/// It names the command, the port when known, the offending lines and what was expected, so a log
/// line is enough to add the module's quirk to its dialect.
public struct ATResponseParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The command line that was sent.
    public var command: String
    /// The port, once the error has left the session (see ``ATSession/send(_:)-(ATCommand)``).
    public var port: String?
    /// The information lines received.
    public var lines: [String]
    /// What was expected.
    public var reason: String

    public init(command: String, port: String? = nil, lines: [String], reason: String) {
        self.command = command
        self.port = port
        self.lines = lines
        self.reason = reason
    }

    /// The error for `response`.
    init(_ response: ATResponse, _ reason: String) {
        self.init(command: response.command, lines: response.lines, reason: reason)
    }

    public var description: String {
        let shown = lines.isEmpty ? "no information line" : lines.map(\.debugDescription).joined(separator: ", ")
        return "\(command)\(port.map { " on \($0)" } ?? ""): unexpected answer (\(shown)): \(reason); "
            + "capture it with `nbgw at` and add the module's shape to its dialect"
    }
}
