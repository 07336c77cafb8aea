import NBGWCore

/// The configuration cannot be used: every problem found, each with the key, the line of the file
/// when there is one, what is wrong and what to write instead. `nbgwd` exits with
/// ``exitCode`` (78, `EX_CONFIG` from sysexits.h), so systemd does not restart it in a loop
/// (the unit's `RestartPreventExitStatus=78`).
public struct DaemonConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One thing wrong with the configuration.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The dotted key (`modem.registration_timeout`, `ports[1].baud`), or nil for the whole file.
        public var key: String?
        /// The 1-based line in the file, when the key is in it.
        public var line: Int?
        /// What is wrong and what to do.
        public var message: String

        public init(key: String?, line: Int?, message: String) {
            self.key = key
            self.line = line
            self.message = message
        }

        public var description: String {
            let location = line.map { "line \($0): " } ?? ""
            let name = key.map { "\($0): " } ?? ""
            return location + name + message
        }
    }

    /// `EX_CONFIG`: "something was found in an unconfigured or misconfigured state".
    public static let exitCode: Int32 = 78

    /// The file the problems are in; nil when they come from flags or the environment alone.
    public var file: String?
    public var problems: [Problem]

    public init(file: String?, problems: [Problem]) {
        self.file = file
        self.problems = problems
    }

    public init(file: String?, key: String?, line: Int? = nil, _ message: String) {
        self.init(file: file, problems: [Problem(key: key, line: line, message: message)])
    }

    /// "invalid configuration in FILE:" then one indented line per problem.
    public var description: String {
        let source = file.map { "invalid configuration in \($0)" } ?? "invalid configuration"
        if problems.count == 1, let only = problems.first {
            return "\(source): \(only)"
        }
        return "\(source) (\(problems.count) problems):\n" + problems.map { "  \($0)" }.joined(separator: "\n")
    }

    /// The same failure as the CLI reports it (`INVALID_ARGUMENT`).
    public var nbgwError: NBGWError {
        NBGWError(.invalidArgument, description)
    }
}
