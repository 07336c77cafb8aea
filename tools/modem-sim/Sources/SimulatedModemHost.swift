/// What a ``SimulatedModem`` needs from the port that hosts it; all calls happen on the
/// simulator's loop thread.
protocol SimulatedModemHost: AnyObject {
    /// The loop's notion of now.
    var now: ContinuousClock.Instant { get }
    /// Runs `action` on the loop thread at `deadline`.
    func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping () -> Void)
    /// Writes bytes to the host (the pty master).
    func send(_ bytes: [UInt8])
    /// Closes the port for good, as an unplug would.
    func hangUp()
    /// The speed the host set, if it is a known one.
    func currentSpeed() -> Int?
    /// Reports the port's counters.
    func publish(_ statistics: SimulatedPortStatistics)
}
