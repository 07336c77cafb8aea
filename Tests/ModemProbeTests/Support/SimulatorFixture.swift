import ATKit
import Foundation
import ModemSimulatorKit

/// A simulator started for one test, stopped when the test's fixture goes away.
final class SimulatorFixture: Sendable {
    let simulator: ModemSimulator
    let ports: [ModemSimulator.Port]

    /// Scripted delays at `timeScale` (2 % by default: a BG95 registers in 60 ms instead of 3 s).
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

/// Probe options for tests: defaults, but faults that cost a query timeout cost one second.
extension ModemProbeOptions {
    static let testing = ModemProbeOptions(queryTimeout: .seconds(1), rebootRecoveryBudget: .seconds(10))
}
