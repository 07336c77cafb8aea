import ATKit
import Foundation
import ModemSimulatorKit
import Synchronization
import Testing

/// ``ModemProbeOptions/onIdentified`` over a real pseudo-terminal: the probe hands over the IMEI
/// the moment it has read it, and stops there when told to.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ProbeIdentificationTests {
    /// Every call of the hook, with the number of command lines the simulated module had received
    /// by then (the simulator counts a command before answering it).
    final class Calls: Sendable {
        private let calls = Mutex<[(identification: ModemIdentification, commandsSoFar: Int)]>([])

        func record(_ identification: ModemIdentification, commandsSoFar: Int) {
            calls.withLock { $0.append((identification, commandsSoFar)) }
        }

        var all: [(identification: ModemIdentification, commandsSoFar: Int)] { calls.withLock { $0 } }
    }

    /// Probe options whose hook records its calls and answers `decision`.
    static func options(
        _ fixture: SimulatorFixture,
        recording calls: Calls,
        decision: ModemIdentification.Decision
    ) -> ModemProbeOptions {
        var options = ModemProbeOptions.testing
        let simulator = fixture.simulator
        options.onIdentified = { identification in
            calls.record(identification, commandsSoFar: simulator.statistics()[0].commands)
            return decision
        }
        return options
    }

    @Test(
        "onIdentified gets the IMEI, identity and dialect once, before the SIM, registration, signal and operator queries"
    )
    func identifiedBeforeTheRemainingQueries() async throws {
        let fixture = try SimulatorFixture(["bg95"])
        let family = SimulatedFamily.bg95
        let calls = Calls()
        let report = try await ModemProbe(options: Self.options(fixture, recording: calls, decision: .proceed))
            .probe(port: fixture.path())
        let total = fixture.simulator.statistics()[0].commands

        let call = try #require(calls.all.count == 1 ? calls.all.first : nil, "called exactly once")
        #expect(call.identification.imei == family.imei(port: 0))
        #expect(call.identification.imei == report.imei)
        #expect(call.identification.port == fixture.path() && call.identification.baudRate == family.nominalBaud)
        #expect(call.identification.manufacturer == "Quectel" && call.identification.model == "BG95-M3")
        #expect(call.identification.firmware == "BG95M3LAR02A03" && call.identification.dialect == "quectel-bg9x")
        // After the IMEI: AT+CPIN?, AT+CIMI, the ICCID, AT+CFUN?, the +CEREG reads and level
        // changes, AT+CSQ, AT+CESQ, AT+COPS=3,2 and AT+COPS?.
        #expect(total - call.commandsSoFar >= 10, "\(call.commandsSoFar) of \(total) commands before the hook")
        // Proceeding, the probe reads everything as without the hook.
        #expect(report.sim == "ready" && report.imsi == family.imsi && report.iccid != nil)
        #expect(report.registration.stat == 1 && report.operator == "26201")
        #expect(report.notes.isEmpty, "\(report.notes)")
    }

    @Test("a probe told to stop after the IMEI sends nothing more and reports only the identification")
    func stopsAfterTheIMEI() async throws {
        let fixture = try SimulatorFixture(["bg95"])
        let calls = Calls()
        let report = try await ModemProbe(options: Self.options(fixture, recording: calls, decision: .stop))
            .probe(port: fixture.path())

        let call = try #require(calls.all.first)
        #expect(calls.all.count == 1)
        #expect(fixture.simulator.statistics()[0].commands == call.commandsSoFar, "no command after the IMEI")
        #expect(report.imei == SimulatedFamily.bg95.imei(port: 0) && report.model == "BG95-M3")
        #expect(report.dialect == "quectel-bg9x" && report.baud == 115_200)
        #expect(report.sim == nil && report.imsi == nil && report.iccid == nil && report.functionality == nil)
        #expect(report.registration.stat == nil && report.signal.rssiDBm == nil && report.operator == nil)
        #expect(report.notes.contains { $0.contains("stopped after the IMEI") }, "\(report.notes)")
    }
}
