/// A typed command was given a value that cannot be written into a command line (a quote in an
/// APN, a timer no bit string can express).
public struct ATCommandArgumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The command mnemonic, e.g. `+CGDCONT`.
    public var command: String
    /// The argument's name.
    public var argument: String
    /// What is wrong and what is allowed.
    public var reason: String

    public init(command: String, argument: String, reason: String) {
        self.command = command
        self.argument = argument
        self.reason = reason
    }

    public var description: String { "\(command): invalid \(argument): \(reason)" }
}
