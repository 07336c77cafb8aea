/// A port specification or fault the simulator cannot play, with what would work instead.
public struct SimulatorConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
