import ATKit
import Foundation
import Gateway
import ModemSimulatorKit
import Registry
import Testing

/// Every module's state tells the truth: no SIM, a locked or failed SIM, a radio kept off, a
/// denial and no service are `waiting` or `locked` with a reason that says what to do, and the
/// module goes on by itself when the cause goes away. Simulated modules on real ptys, a real
/// store, supervision time on a manual clock.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ModemTruthTests {
    @Test("a module without a SIM waits with SIM_ABSENT and goes on to ready when a SIM is inserted")
    func simAbsentThenInserted() async throws {
        let sim = try SimulatorFixture(["bg95,sim=missing"])
        let harness = try GatewayHarness()
        let path = sim.path()
        harness.appear(path)
        let waiting = try await harness.expect(path, .waiting)
        #expect(waiting.reason?.code == "SIM_ABSENT")
        #expect(waiting.reason?.message.contains(SimulatedFamily.bg95.imei(port: 0)) == true)
        let row = try #require(try harness.registry.modems.find(imeiOrPort: path))
        #expect(row.state == "waiting" && row.reason?.code == "SIM_ABSENT" && row.imsi == nil)
        #expect(harness.gateway.modem(path)?.reason?.code == "SIM_ABSENT")

        sim.simulator.trigger(.insertSIM(announce: true), port: 0)
        try await harness.expect(path, .configuring)
        try await harness.expect(path, .searching)
        try await harness.expect(path, .ready)
        let ready = try #require(try harness.registry.modems.find(imeiOrPort: path))
        #expect(ready.imsi == SimulatedFamily.bg95.imsi && ready.iccid == SimulatedFamily.bg95.iccid)
        #expect(ready.reason == nil)
        let history = await harness.history(of: path)
        #expect(!history.contains(.failed) && !restarted(history), "no restart, no backoff")
    }

    @Test("a SIM inserted without a URC is found by the periodic AT+CPIN?")
    func simInsertedQuietly() async throws {
        let sim = try SimulatorFixture(["sim7080,sim=missing"])
        let harness = try GatewayHarness()
        let path = sim.path()
        harness.appear(path)
        try await harness.expect(path, .waiting)
        sim.simulator.trigger(.insertSIM(announce: false), port: 0)
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(10))
        try await harness.expect(path, .ready)
    }

    @Test("a failed SIM (+CME ERROR: 13) waits with SIM_FAILURE; nRF91's +CEREG: 90 says the same")
    func simFailure() async throws {
        let sim = try SimulatorFixture(["bg95,sim=failure"])
        let harness = try GatewayHarness()
        harness.appear(sim.path())
        let waiting = try await harness.expect(sim.path(), .waiting)
        #expect(waiting.reason?.code == "SIM_FAILURE")

        let supervisorReason = ModemReasonCode.simFailure
        #expect(supervisorReason.state == .waiting)
        #expect(RegistrationStatus(stat: 90).state == .simFailure)
    }

    @Test("a PIN-locked SIM with no PIN configured is locked; a PIN given later is entered once and the module goes on")
    func pinGivenLater() async throws {
        let sim = try SimulatorFixture(["bg95,sim=pin,pin=2468"])
        let harness = try GatewayHarness()
        let path = sim.path()
        let imei = SimulatedFamily.bg95.imei(port: 0)
        harness.appear(path)
        let locked = try await harness.expect(path, .locked)
        #expect(locked.reason?.code == "SIM_PIN_REQUIRED")
        #expect(locked.reason?.message.contains(SimulatedFamily.bg95.iccid) == true, "names the SIM by ICCID")
        #expect(sim.simulator.statistics()[0].pinEntries == 0)

        harness.gateway.updateSIMPINs(SIMPINBook([.init(iccid: SimulatedFamily.bg95.iccid, pin: "2468")]))
        try await harness.expect(path, .ready)
        #expect(sim.simulator.statistics()[0].pinEntries == 1)
        let audit = try harness.registry.audit.entries().filter { $0.event == "sim_pin" }
        #expect(audit.count == 1 && audit[0].imei == imei && audit[0].code == "OK")
        #expect(audit[0].detail?.contains("2468") == false, "the PIN is never written")
    }

    @Test("a wrong configured PIN is entered once, never again: not on a reload, not by a new gateway")
    func wrongPINNeverRetried() async throws {
        let sim = try SimulatorFixture(["bg95,sim=pin,pin=4321"])
        let book = SIMPINBook([.init(iccid: SimulatedFamily.bg95.iccid, pin: "7913")])
        var configuration = GatewayConfiguration.testing()
        configuration.simPINs = book
        let harness = try GatewayHarness(configuration: configuration)
        let path = sim.path()
        harness.appear(path)
        let locked = try await harness.expect(path, .locked)
        #expect(locked.reason?.code == "SIM_PIN_REJECTED")
        #expect(locked.reason?.message.contains("2 attempts left") == true)
        #expect(locked.reason?.message.contains("7913") == false, "the PIN is never shown")
        #expect(sim.simulator.statistics()[0].pinEntries == 1)

        // Polls and a reload with the same PIN do not enter it again.
        harness.gateway.updateSIMPINs(book)
        for _ in 0..<3 {
            await harness.clock.waitForSleepers(1)
            harness.clock.advance(by: .seconds(10))
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(sim.simulator.statistics()[0].pinEntries == 1)

        // A new gateway on the same store remembers the refusal.
        await harness.shutDown()
        let again = try GatewayHarness(configuration: configuration, directory: harness.directory)
        again.appear(path)
        let relocked = try await again.expect(path, .locked)
        #expect(relocked.reason?.code == "SIM_PIN_REJECTED")
        #expect(sim.simulator.statistics()[0].pinEntries == 1)

        // The right PIN is another PIN: entered once, and the module goes on.
        again.gateway.updateSIMPINs(SIMPINBook([.init(iccid: SimulatedFamily.bg95.iccid, pin: "4321")]))
        try await again.expect(path, .ready)
        #expect(sim.simulator.statistics()[0].pinEntries == 2)
    }

    @Test("with one PIN attempt left the configured PIN is not risked")
    func lastAttemptNotRisked() async throws {
        let sim = try SimulatorFixture(["nrf9160,sim=pin,pin=1234,pin-attempts=1"])
        var configuration = GatewayConfiguration.testing()
        configuration.simPINs = SIMPINBook([.init(imei: SimulatedFamily.nrf9160.imei(port: 0), pin: "1234")])
        let harness = try GatewayHarness(configuration: configuration)
        harness.appear(sim.path())
        let locked = try await harness.expect(sim.path(), .locked)
        #expect(locked.reason?.code == "SIM_PIN_LAST_ATTEMPT")
        #expect(sim.simulator.statistics()[0].pinEntries == 0)
    }

    @Test("a SIM blocked behind its PUK is locked with SIM_PUK_REQUIRED and no PIN is entered")
    func pukRequired() async throws {
        let sim = try SimulatorFixture(["bg95,sim=puk"])
        var configuration = GatewayConfiguration.testing()
        configuration.simPINs = SIMPINBook([.init(iccid: SimulatedFamily.bg95.iccid, pin: "1234")])
        let harness = try GatewayHarness(configuration: configuration)
        harness.appear(sim.path())
        let locked = try await harness.expect(sim.path(), .locked)
        #expect(locked.reason?.code == "SIM_PUK_REQUIRED")
        #expect(sim.simulator.statistics()[0].pinEntries == 0)
    }

    @Test("a denied registration waits with the EMM cause decoded, without backoff, and goes on when accepted")
    func deniedThenAccepted() async throws {
        let sim = try SimulatorFixture(["generic,registration=denied"])
        let harness = try GatewayHarness()
        let path = sim.path()
        harness.appear(path)
        try await harness.expect(path, .searching)
        let waiting = try await harness.expect(path, .waiting)
        #expect(waiting.reason?.code == "REGISTRATION_DENIED")
        #expect(waiting.reason?.message.contains("#15 no suitable cells in tracking area") == true)
        let row = try #require(try harness.registry.modems.find(imeiOrPort: path))
        #expect(row.state == "waiting" && row.registration.stat == 3 && row.registration.rejectCause == 15)
        #expect(row.attempts == 0 && row.retryAt == nil, "a denial is no failure to back off from")
        #expect(harness.gateway.counters().registrationsCreated == 0)

        sim.simulator.trigger(.register, port: 0)
        try await harness.expect(path, .registering)
        try await harness.expect(path, .ready)
        let history = await harness.history(of: path)
        #expect(!history.contains(.failed) && !restarted(history))
    }

    @Test("a module still searching past the timeout shows NO_SERVICE with the last signal, then ready on a cell")
    func noServiceThenRegistered() async throws {
        let sim = try SimulatorFixture(["bg95,registration=never"])
        let harness = try GatewayHarness()
        let path = sim.path()
        harness.appear(path)
        try await harness.expect(path, .searching)
        // Polls every 30 s; the deadline is 120 s.
        for _ in 0..<4 {
            await harness.clock.waitForSleepers(1)
            harness.clock.advance(by: .seconds(30))
        }
        let waiting = try await harness.expect(path, .waiting)
        #expect(waiting.reason?.code == "NO_SERVICE")
        #expect(waiting.reason?.message.contains("not registered after 2m 0s") == true)
        #expect(waiting.reason?.message.contains("no signal measured") == true)

        sim.simulator.trigger(.register, port: 0)
        try await harness.expect(path, .ready)
        #expect(!(await harness.history(of: path)).contains(.failed))
    }

    @Test("a radio turned off while searching is turned on again; [modem] radio = off keeps it off")
    func radio() async throws {
        let sim = try SimulatorFixture(["bg95,registration=never", "sim7080"])
        let harness = try GatewayHarness()
        harness.appear(sim.path(0))
        try await harness.expect(sim.path(0), .searching)
        sim.simulator.trigger(.radioOff, port: 0)
        sim.simulator.trigger(.register, port: 0)
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(30))
        try await harness.expect(sim.path(0), .ready)

        var off = GatewayConfiguration.testing()
        off.keepsRadioOff = true
        let quiet = try GatewayHarness(configuration: off)
        quiet.appear(sim.path(1))
        let waiting = try await quiet.expect(sim.path(1), .waiting)
        #expect(waiting.reason?.code == "RADIO_OFF")
        #expect(!(await quiet.history(of: sim.path(1))).contains(.searching))
    }

    @Test("a ready module that loses the network searches, then shows NO_SERVICE, then is ready again")
    func lostAndRegained() async throws {
        let sim = try SimulatorFixture(["bg95"])
        let harness = try GatewayHarness()
        let path = sim.path()
        harness.appear(path)
        try await harness.expect(path, .ready)
        sim.simulator.trigger(.loseNetwork, port: 0)
        try await harness.expect(path, .searching)
        // The signal poll runs every 60 s; the registration timeout is 120 s.
        for _ in 0..<3 {
            await harness.clock.waitForSleepers(1)
            harness.clock.advance(by: .seconds(60))
        }
        let waiting = try await harness.expect(path, .waiting)
        #expect(waiting.reason?.code == "NO_SERVICE")
        sim.simulator.trigger(.register, port: 0)
        let ready = try await harness.expect(path, .ready)
        #expect(ready.reason == nil)
        let history = await harness.history(of: path)
        #expect(!history.contains(.failed) && !restarted(history), "nothing restarted")
    }

    @Test("a ready module denied by the network waits with the cause, and is ready again when accepted")
    func deniedWhileReady() async throws {
        let sim = try SimulatorFixture(["sim7080"])
        let harness = try GatewayHarness()
        let path = sim.path()
        harness.appear(path)
        try await harness.expect(path, .ready)
        sim.simulator.trigger(.deny(cause: 11), port: 0)
        let waiting = try await harness.expect(path, .waiting)
        #expect(waiting.reason?.code == "REGISTRATION_DENIED")
        #expect(waiting.reason?.message.contains("#11 PLMN not allowed") == true)
        sim.simulator.trigger(.register, port: 0)
        try await harness.expect(path, .ready)
    }

    @Test("a SIM pulled out of a ready module: waiting with SIM_ABSENT; pushed back: ready again")
    func simPulledWhileReady() async throws {
        let sim = try SimulatorFixture(["bg95"])
        let harness = try GatewayHarness()
        let path = sim.path()
        harness.appear(path)
        let before = try await harness.expect(path, .ready)
        sim.simulator.trigger(.removeSIM, port: 0)
        let waiting = try await harness.expect(path, .waiting)
        #expect(waiting.reason?.code == "SIM_ABSENT")
        sim.simulator.trigger(.insertSIM(announce: true), port: 0)
        let after = try await harness.expect(path, .ready)
        #expect(after.deviceID == before.deviceID)
    }

    @Test("a module that stops answering is retried with a reset, then given up with NOT_RESPONDING")
    func notRespondingAfterResets() async throws {
        let sim = try SimulatorFixture(["bg95"])
        var configuration = GatewayConfiguration.testing()
        configuration.maxResets = 1
        configuration.signalPollInterval = .seconds(5)
        configuration.commandTimeout = .seconds(1)
        let harness = try GatewayHarness(configuration: configuration)
        let path = sim.path()
        harness.appear(path)
        try await harness.expect(path, .ready)
        // The poll on entering ready has run; the next one (5 s on the clock) meets the silence.
        await harness.clock.waitForSleepers(1)
        sim.simulator.inject(.noAnswer("AT"), port: 0)
        harness.clock.advance(by: .seconds(5))
        let first = try await harness.expect(path, .failed, within: .seconds(20))
        #expect(first.failure?.code == .unresponsive && first.reason?.code == "UNRESPONSIVE")
        // The backoff (1 s), then a second attempt (a reset first: the port is silent, so it is a
        // re-probe) that meets the same silence: past max_resets (1), the supervisor gives up.
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        let gaveUp = try await harness.expect(path, "give up", within: .seconds(30)) {
            $0.state == .failed && $0.reason?.code == "NOT_RESPONDING"
        }
        #expect(gaveUp.reason?.message.contains("power-cycle") == true)
        let row = try #require(try harness.registry.modems.find(imeiOrPort: path))
        #expect(row.reason?.code == "NOT_RESPONDING" && row.retryAt == nil)
        #expect(harness.clock.sleeperCount == 0, "no backoff runs: it waits for an operator")
    }
}

/// Whether the module went back to `probing` after its first bring-up (an attempt restarted).
func restarted(_ history: [ModemState]) -> Bool {
    history.drop { $0 != .configuring }.contains(.probing)
}
