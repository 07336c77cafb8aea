/// What one simulated port did, for tests and the benchmark.
public struct SimulatedPortStatistics: Sendable, Hashable, Codable {
    public var index: Int
    /// Command lines received (including those lost to faults or PSM).
    public var commands: Int
    /// The sum of the scripted answer delays: the time a perfect host would have spent waiting
    /// for this port. The benchmark compares the host's wall time with it.
    public var scriptedLatency: Duration
    public var bytesReceived: Int
    public var bytesSent: Int
    /// Reboots played (faults and reboot commands).
    public var reboots: Int
    /// How much later than scripted the answers actually went out, summed: the simulator's own
    /// scheduling delay (one thread serving every port), to be told apart from the host's.
    public var lateness: Duration = .zero
    /// `AT+CPIN=` commands received (PINs and PUKs entered).
    public var pinEntries = 0
    /// Commands received while the answer to the previous one was still due: a host that does not
    /// wait for each final result (an interleaving bug). 0 for a correct host.
    public var overlappingCommands = 0

    public init(
        index: Int,
        commands: Int = 0,
        scriptedLatency: Duration = .zero,
        bytesReceived: Int = 0,
        bytesSent: Int = 0,
        reboots: Int = 0
    ) {
        self.index = index
        self.commands = commands
        self.scriptedLatency = scriptedLatency
        self.bytesReceived = bytesReceived
        self.bytesSent = bytesSent
        self.reboots = reboots
    }

    /// ``scriptedLatency`` in milliseconds.
    public var scriptedLatencyMilliseconds: Double { Self.milliseconds(scriptedLatency) }

    /// ``lateness`` in milliseconds.
    public var latenessMilliseconds: Double { Self.milliseconds(lateness) }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
