/// A started emulator: where it listens, its state and fault plan, and how to stop it.
public final class RunningCloudEmulator: Sendable {
    public let host: String
    public let port: Int
    public let store: EmulatorStore
    public let faults: FaultInjector
    let task: Task<Void, any Error>

    init(host: String, port: Int, store: EmulatorStore, faults: FaultInjector, task: Task<Void, any Error>) {
        self.host = host
        self.port = port
        self.store = store
        self.faults = faults
        self.task = task
    }

    /// `http://HOST:PORT`, the base URL for ``TuyaCloud/CloudConfiguration``.
    public var baseURL: String { "http://\(host):\(port)" }

    /// What the emulator saw so far.
    public func stats() throws -> EmulatorStats {
        try store.stats(faultsFired: faults.firedCounts)
    }

    /// Stops serving (cancels the server task and waits for it).
    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
