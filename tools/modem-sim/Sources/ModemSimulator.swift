import Synchronization

/// Pseudo-terminals that behave like NB-IoT / LTE-M modules, for tests, the demo and benchmarks.
///
/// ```swift
/// let simulator = try ModemSimulator(specs: ["bc95", "bg95,sim=missing", "diag"], timeScale: 0.05)
/// let ports = try simulator.start()          // [Port(family: "bc95", path: "/dev/pts/7", baud: 9600), ...]
/// let report = try await ModemProbe().probe(port: ports[0].path)
/// simulator.inject(.hangUp(afterCommands: 0), port: 1)
/// simulator.stop()
/// ```
///
/// Each port plays a ``SimulatedFamily`` with its scenario (``SimulatedPortConfiguration``):
/// boot banner, echo until `ATE0`, its speed rule (a 9600-baud BC95 answers noise at 115200),
/// scripted latencies multiplied by `timeScale`, registration through URCs, PSM, and
/// ``SimulatedFault``s on demand. All ports run on one thread (``SimulatorLoop``).
public final class ModemSimulator: Sendable {
    /// A running port, as printed by `nbgw-modem-sim` (one JSON object per line).
    public struct Port: Sendable, Hashable, Codable {
        public var index: Int
        public var family: String
        public var path: String
        public var baud: Int
    }

    public let configurations: [SimulatedPortConfiguration]
    public let timeScale: Double
    public let seed: UInt64
    /// Pty masters opened by someone else, by port index (`ModemSimulator+ExternalMaster.swift`).
    let adoptedMasters: [Int: AdoptedMaster]
    private let state = Mutex<(loop: SimulatorLoop?, ports: [Port], stopped: Bool)>((nil, [], false))

    public convenience init(ports: [SimulatedPortConfiguration], timeScale: Double = 1, seed: UInt64 = 1) {
        self.init(ports: ports, adoptedMasters: [:], timeScale: timeScale, seed: seed)
    }

    init(ports: [SimulatedPortConfiguration], adoptedMasters: [Int: AdoptedMaster], timeScale: Double, seed: UInt64) {
        self.configurations = ports
        self.adoptedMasters = adoptedMasters
        self.timeScale = max(0, timeScale)
        self.seed = seed
    }

    /// Ports from specifications (see ``SimulatedPortConfiguration/init(spec:)``).
    public convenience init(
        specs: [String],
        timeScale: Double = 1,
        seed: UInt64 = 1
    ) throws(SimulatorConfigurationError) {
        var ports: [SimulatedPortConfiguration] = []
        for spec in specs {
            ports.append(try SimulatedPortConfiguration(spec: spec))
        }
        self.init(ports: ports, timeScale: timeScale, seed: seed)
    }

    deinit {
        stop()
    }

    /// Opens the pseudo-terminals, powers the modules on and returns the ports.
    @discardableResult
    public func start() throws(SimulatorConfigurationError) -> [Port] {
        if let started = state.withLock({ $0.loop == nil ? nil : $0.ports }) { return started }
        let loop = try SimulatorLoop(timeScale: timeScale, portCount: configurations.count)
        var ports: [Port] = []
        for (index, configuration) in configurations.enumerated() {
            var terminal: PseudoTerminalPort?
            if let master = adoptedMasters[index] {
                terminal = try PseudoTerminalPort(adopting: master, nominalBaud: configuration.family.nominalBaud)
            }
            let port = try SimulatedPort(
                index: index,
                configuration: configuration,
                loop: loop,
                seed: seed,
                terminal: terminal
            )
            loop.add(port)
            ports.append(
                Port(
                    index: index,
                    family: configuration.family.id,
                    path: port.terminal.path,
                    baud: configuration.family.nominalBaud
                )
            )
        }
        loop.start()
        state.withLock { $0 = (loop, ports, false) }
        return ports
    }

    /// The running ports (empty before ``start()``).
    public var ports: [Port] { state.withLock { $0.ports } }

    /// Makes port `index` show `fault` from now on.
    public func inject(_ fault: SimulatedFault, port index: Int) {
        loop?.perform { loop in loop.port(index)?.modem.apply(fault) }
    }

    /// Plays `event` on port `index` (a SIM inserted, the network denying it, …).
    public func trigger(_ event: SimulatedEvent, port index: Int) {
        loop?.perform { loop in loop.port(index)?.modem.trigger(event) }
    }

    /// Every port's counters so far.
    public func statistics() -> [SimulatedPortStatistics] {
        loop?.currentStatistics ?? []
    }

    /// Indices of ports that have hung up.
    public var hungUpPorts: Set<Int> { loop?.hungUpPorts ?? [] }

    /// Closes every pseudo-terminal (hosts then read EOF) and stops the thread. Idempotent.
    public func stop() {
        let loop: SimulatorLoop? = state.withLock { state in
            guard !state.stopped, let loop = state.loop else { return nil }
            state.stopped = true
            return loop
        }
        loop?.stop()
    }

    private var loop: SimulatorLoop? {
        state.withLock { $0.stopped ? nil : $0.loop }
    }
}
