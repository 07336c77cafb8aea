import ATKit
import Cloud
import Foundation
import Gateway
import ModemSimulatorKit
import Registry
import TestClocks
import Testing

/// A running ``Gateway`` for one test: a real store in a temporary directory, the embedded cloud,
/// a manual clock for supervision time, and the port events the test sends. Every state change is
/// recorded, so a test can wait for "port P becomes S" in order.
final class GatewayHarness: Sendable {
    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    let directory: URL
    let ownsDirectory: Bool
    let registry: Registry
    let clock: ManualClock
    let gateway: Gateway
    let log = ChangeLog()
    private let continuation: AsyncStream<PortEvent>.Continuation
    private let runTask: Task<Void, Never>
    private let cursors = Cursors()

    /// - Parameter directory: where the store is (a second gateway on the store of a first); a new
    ///   temporary directory by default, removed with the harness.
    init(
        configuration: GatewayConfiguration = .testing(),
        clock: ManualClock = ManualClock(),
        directory: URL? = nil
    ) throws {
        self.ownsDirectory = directory == nil
        self.directory =
            directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-gw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        registry = try Registry(path: self.directory.appendingPathComponent("store.sqlite").path)
        self.clock = clock
        gateway = Gateway(
            configuration: configuration,
            registry: registry,
            cloud: EmbeddedCloud(),
            clock: clock
        )
        let changes = gateway.stateChanges()
        let log = self.log
        Task { for await change in changes { await log.append(change) } }
        let (events, continuation) = AsyncStream.makeStream(of: PortEvent.self)
        self.continuation = continuation
        let gateway = self.gateway
        runTask = Task { await gateway.run(events: events) }
    }

    deinit {
        continuation.finish()
        runTask.cancel()
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    func appear(_ path: String, deviceKey: String? = nil, baudRates: [Int] = []) {
        continuation.yield(
            .appeared(ModemPort(path: path, deviceKey: deviceKey, baudRates: baudRates, origin: .config))
        )
    }

    func vanish(_ path: String) {
        continuation.yield(.vanished(path: path))
    }

    /// No more events: `run` returns once every supervisor has finished.
    func endEvents() {
        continuation.finish()
    }

    /// Cancels the gateway's run and waits for it to return.
    func shutDown() async {
        runTask.cancel()
        await runTask.value
    }

    /// Waits for `run` to return on its own.
    func finished() async {
        await runTask.value
    }

    /// The next change of `path` to `state` after the last one this harness matched for `path`
    /// (so successive calls follow the port's history in order). Fails after `timeout` of real
    /// time: these tests drive real pseudo-terminals.
    @discardableResult
    func expect(
        _ path: String,
        _ state: ModemState,
        within timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ModemStateChange {
        try await expect(path, "become \(state.rawValue)", within: timeout) { $0.state == state }
    }

    /// The next change of `path` that satisfies `predicate` (`what` names it in the failure),
    /// after the last one this harness matched for `path`.
    @discardableResult
    func expect(
        _ path: String,
        _ what: String,
        within timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (ModemStateChange) -> Bool
    ) async throws -> ModemStateChange {
        let from = await cursors.position(of: path)
        let id = UUID()
        let log = self.log
        let timer = Task {
            try? await Task.sleep(for: timeout)
            await log.expire(id)
        }
        defer { timer.cancel() }
        guard let found = await log.next(id: id, from: from, where: { $0.port == path && predicate($0) }) else {
            let history = await log.history(of: path).map {
                "\($0.state.rawValue)\($0.imei.map { " [\($0)]" } ?? "")\($0.failure.map { " (\($0))" } ?? "")"
            }
            throw Timeout(
                description: "\(path) did not \(what) within \(timeout); its history: "
                    + history.joined(separator: " → ")
            )
        }
        await cursors.move(path, to: found.0 + 1)
        return found.1
    }

    /// The states `path` went through so far.
    func history(of path: String) async -> [ModemState] {
        await log.history(of: path).map(\.state)
    }
}

/// Every state change the gateway announced, and the tests waiting for some.
actor ChangeLog {
    private(set) var changes: [ModemStateChange] = []
    private var waiters:
        [UUID: (
            from: Int, predicate: @Sendable (ModemStateChange) -> Bool,
            continuation: CheckedContinuation<(Int, ModemStateChange)?, Never>
        )] =
            [:]

    func append(_ change: ModemStateChange) {
        changes.append(change)
        let index = changes.count - 1
        for (id, waiter) in waiters where waiter.from <= index && waiter.predicate(change) {
            waiters[id] = nil
            waiter.continuation.resume(returning: (index, change))
        }
    }

    func next(
        id: UUID,
        from: Int,
        where predicate: @escaping @Sendable (ModemStateChange) -> Bool
    ) async -> (Int, ModemStateChange)? {
        if from < changes.count, let index = changes[from...].firstIndex(where: predicate) {
            return (index, changes[index])
        }
        return await withCheckedContinuation { continuation in
            waiters[id] = (from, predicate, continuation)
        }
    }

    func expire(_ id: UUID) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: nil)
    }

    func history(of path: String) -> [ModemStateChange] {
        changes.filter { $0.port == path }
    }
}

/// Per-port positions in the change log.
actor Cursors {
    private var positions: [String: Int] = [:]

    func position(of path: String) -> Int { positions[path] ?? 0 }

    func move(_ path: String, to position: Int) { positions[path] = position }
}

/// A simulator started for one test, stopped with it.
final class SimulatorFixture: Sendable {
    let simulator: ModemSimulator
    let ports: [ModemSimulator.Port]

    /// Scripted delays at `timeScale` (2 %: a BG95 registers in 60 ms instead of 3 s).
    init(_ specs: [String], timeScale: Double = 0.02) throws {
        simulator = try ModemSimulator(specs: specs, timeScale: timeScale, seed: 7)
        ports = try simulator.start()
    }

    deinit {
        simulator.stop()
    }

    func path(_ index: Int = 0) -> String {
        ports[index].path
    }
}

extension GatewayConfiguration {
    /// Test settings: no jitter, a short backoff (on the manual clock), faults that cost a query
    /// timeout cost one second.
    static func testing(
        plan: ModemBringUpPlan = ModemBringUpPlan(),
        probe: ModemProbeOptions = ModemProbeOptions(queryTimeout: .seconds(1), rebootRecoveryBudget: .seconds(10))
    ) -> GatewayConfiguration {
        var configuration = GatewayConfiguration(
            plan: plan,
            probe: probe,
            registrationTimeout: .seconds(120),
            signalPollInterval: .seconds(60),
            backoffInitial: .seconds(1),
            backoffCap: .seconds(8)
        )
        configuration.backoffJitter = 0
        configuration.commandTimeout = .seconds(5)
        return configuration
    }
}
