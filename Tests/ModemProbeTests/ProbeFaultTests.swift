import ATKit
import Foundation
import ModemSimulatorKit
import Testing

/// Every simulated fault, over a real pty: a correct report or a clear, typed error, in bounded time.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ProbeFaultTests {
    let clock = ContinuousClock()

    @Test func garbageOnTheLine() async throws {
        let fixture = try SimulatorFixture(["bg95,fault=garbage"])
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        #expect(report.imei == SimulatedFamily.bg95.imei(port: 0))
        #expect(report.manufacturer == "Quectel" && report.model == "BG95-M3")
        #expect(report.registration.technology == "lte-m")
        #expect(report.operator == "26201")
    }

    @Test(arguments: ["bg95", "bc95", "nrf9160"])
    func urcInsideEveryResponse(_ family: String) async throws {
        let fixture = try SimulatorFixture(["\(family),fault=urc-in-response"])
        let expected = try #require(SimulatedFamily.named(family))
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        #expect(report.manufacturer == expected.manufacturer)
        #expect(report.model == expected.model)
        #expect(report.imei == expected.imei(port: 0))
        #expect(report.imsi == expected.imsi)
        #expect(report.notes.isEmpty, "\(report.notes)")
    }

    @Test func aCommandThatNeverAnswersCostsOneTimeout() async throws {
        // The same module without the fault, probed first: the fault's cost is measured against it,
        // not against an absolute wall-clock bound a loaded CI machine can blow (one did: 4.9 s).
        let control = try SimulatorFixture(["bg95"])
        let controlStart = clock.now
        _ = try await ModemProbe(options: .testing).probe(port: control.path())
        let controlTime = controlStart.duration(to: clock.now)

        let fixture = try SimulatorFixture(["bg95,fault=no-answer:AT+CESQ"])
        let start = clock.now
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        let extra = start.duration(to: clock.now) - controlTime
        // Not retried: the module saw the control's command lines plus one `AT`, the session's
        // resynchronisation probe after a timeout.
        #expect(fixture.simulator.statistics()[0].commands == control.simulator.statistics()[0].commands + 1)
        #expect(report.notes.filter { $0.contains("no answer") }.count == 1, "\(report.notes)")
        // One query timeout (1 s) on top of the control's time; a second would make it 2 s.
        #expect(extra < .seconds(2), "\(extra) over the control's \(controlTime)")
        #expect(report.signal.rsrpDBm == nil && report.signal.rsrqDB == nil)
        #expect(report.signal.rssiDBm == -73)
        #expect(report.operator == "26201")
        #expect(report.notes.contains { $0.contains("AT+CESQ") && $0.contains("no answer") })
    }

    @Test(arguments: ["bg95,fault=reboot:6", "bc95,fault=reboot:7", "sim7080,fault=reboot:9"])
    func rebootInTheMiddleOfTheProbe(_ spec: String) async throws {
        let fixture = try SimulatorFixture([spec])
        let family = try #require(SimulatedFamily.named(String(spec.prefix { $0 != "," })))
        let report = try await ModemProbe(options: .testing).probe(port: fixture.path())
        #expect(report.imei == family.imei(port: 0))
        #expect(report.model == family.model)
        #expect(report.iccid != nil)
        #expect(report.notes.contains { $0.contains("rebooted") }, "\(report.notes)")
        #expect(fixture.simulator.statistics()[0].reboots == 1)
    }

    @Test func hangUpMidProbeIsADeadPort() async throws {
        let fixture = try SimulatorFixture(["bg95,fault=hangup:5"])
        let start = clock.now
        await #expect {
            try await ModemProbe(options: .testing).probe(port: fixture.path())
        } throws: { error in
            guard let error = error as? ModemProbeError, case .portClosed(let port, let command, _) = error else {
                return false
            }
            return error.kind == .deadPort && port == fixture.path() && command != nil
        }
        #expect(start.duration(to: clock.now) < .seconds(3))
    }

    @Test func aModemThatErrorsOnEverything() async throws {
        let fixture = try SimulatorFixture(["bg95,fault=errors"])
        await #expect {
            try await ModemProbe(options: .testing).probe(port: fixture.path())
        } throws: { error in
            guard let error = error as? ModemProbeError, case .modemError(_, let command, let detail) = error else {
                return false
            }
            return command == "AT+CGMI" && detail.contains("ERROR") && error.description.contains("nbgw at")
        }
    }

    @Test(arguments: [("diag", false), ("nmea", true)])
    func notAModemWithinSeconds(_ spec: String, _ noisy: Bool) async throws {
        let fixture = try SimulatorFixture([spec], timeScale: 0.1)
        let start = clock.now
        await #expect {
            try await ModemProbe().probe(port: fixture.path())
        } throws: { error in
            guard let error = error as? ModemProbeError, case .notAModem(_, let baudRates, let sawBytes) = error else {
                return false
            }
            return baudRates == ModemProbeOptions.defaultBaudRates && sawBytes == noisy
        }
        let elapsed = start.duration(to: clock.now)
        // 5 speeds × 3 attempts × 250 ms, plus opening and closing.
        #expect(elapsed < .seconds(5), "a silent port took \(elapsed)")
    }

    @Test func aPortThatDoesNotExistFailsAtOnce() async throws {
        let start = clock.now
        await #expect {
            try await ModemProbe().probe(port: "/dev/ttyNBGW-missing")
        } throws: { error in
            guard let error = error as? ModemProbeError, case .portUnavailable(_, .openFailed(_, let code)) = error
            else { return false }
            return code == ENOENT && error.kind == .deadPort && error.description.contains("check the path")
        }
        #expect(start.duration(to: clock.now) < .milliseconds(500))
    }

    @Test func aHungUpPortIsDead() async throws {
        let fixture = try SimulatorFixture(["bg95"])
        fixture.simulator.inject(.hangUp(afterCommands: 0), port: 0)
        while !fixture.simulator.hungUpPorts.contains(0) { try await Task.sleep(for: .milliseconds(5)) }
        await #expect {
            try await ModemProbe().probe(port: fixture.path())
        } throws: { error in
            (error as? ModemProbeError)?.kind == .deadPort
        }
    }

    @Test func aBusyPortNamesTheOtherProgram() async throws {
        let fixture = try SimulatorFixture(["bg95"])
        let holder = try SerialPortTransport(path: fixture.path())
        await #expect {
            try await ModemProbe().probe(port: fixture.path())
        } throws: { error in
            guard let error = error as? ModemProbeError, case .portUnavailable(_, .portBusy) = error else {
                return false
            }
            return error.description.contains("ModemManager")
        }
        await holder.close()
    }
}
