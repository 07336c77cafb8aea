/// The answer to one command: its information lines (in order, URCs removed) and final result.
public struct ATResponse: Sendable, Hashable, CustomStringConvertible {
    /// The command line that was sent.
    public var command: String
    /// Information lines, trimmed, without echo and without URCs that arrived meanwhile.
    public var lines: [String]
    /// The final result code.
    public var final: ATFinalResult

    public init(command: String, lines: [String], final: ATFinalResult) {
        self.command = command
        self.lines = lines
        self.final = final
    }

    /// Whether ``final`` is a success code.
    public var isSuccess: Bool { final.isSuccess }

    /// The parameters of every line named `name` (3GPP TS 27.007 §4.2 information text
    /// `+NAME: <params>`), trimmed, with or without the space after the colon:
    /// `values(for: "+CGSN")` → `["866123456789012"]` for `+CGSN:866123456789012`.
    public func values(for name: String) -> [String] {
        lines.compactMap { line in
            guard line.hasPrefix(name) else { return nil }
            let rest = line.dropFirst(name.count)
            guard rest.hasPrefix(":") else { return nil }
            return rest.dropFirst().trimmingSpaces()
        }
    }

    public var description: String {
        (lines + [final.description]).joined(separator: " | ")
    }
}
