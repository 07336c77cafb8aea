import ATKit
import Foundation
import Gateway
import ModemSimulatorKit
import Registry
import Testing

/// The supervisor's state machine against simulated modules on real pseudo-terminals, through a
/// whole ``Gateway``: the store is a real SQLite file, the cloud the embedded one, and supervision
/// time (backoff, deadlines, polls) a manual clock, so "retry after 2 s" is tested without waiting.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SupervisorTests {
    @Test("a module goes from probe to ready with its IMEI, model, registration, signal and a device id")
    func probeToReady() async throws {
        let sim = try SimulatorFixture(["bg95"])
        let harness = try GatewayHarness()
        let path = sim.path()
        let imei = SimulatedFamily.bg95.imei(port: 0)
        let clock = ContinuousClock()
        let start = clock.now
        harness.appear(path)
        for state in [ModemState.probing, .configuring, .searching, .registering] {
            try await harness.expect(path, state)
        }
        let ready = try await harness.expect(path, .ready)
        print("one BG95 from appeared to ready in \(start.duration(to: clock.now))")
        #expect(ready.imei == imei)

        let device = try #require(try harness.registry.directory.device(imei: imei))
        #expect(ready.deviceID == device.deviceID)
        #expect(device.model == "BG95-M3" && device.manufacturer == "Quectel" && device.productID == "BG95-M3")
        #expect(device.imsi == SimulatedFamily.bg95.imsi && device.iccid == SimulatedFamily.bg95.iccid)

        let row = try #require(try harness.registry.modems.find(imeiOrPort: imei))
        #expect(row.port == path && row.state == "ready" && row.deviceID == device.deviceID)
        #expect(row.dialect == "quectel-bg9x" && row.model == "BG95-M3" && row.firmware == "BG95M3LAR02A03")
        #expect(row.baud == 115_200 && row.attempts == 0 && row.lastError == nil)
        #expect(row.registration.stat == 1 && row.registration.tac == "B3C1" && row.registration.ci == "01D4A2F3")
        #expect(row.registration.act == 8 && row.registration.technology == "lte-m")
        #expect(row.registration.operator == "26201")
        // The first poll runs on entering ready: +CSQ 20 → −73 dBm, +CESQ rsrp 55 → −86 dBm, rsrq 20 → −10 dB.
        try await eventually("the signal poll is recorded") {
            let signal = try harness.registry.modems.find(imeiOrPort: imei)?.signal
            return signal?.rssiDBm == -73 && signal?.rsrpDBm == -86 && signal?.rsrqDB == -10
        }
        #expect(harness.gateway.snapshot()[.ready] == 1)
        #expect(harness.gateway.states() == [path: .ready])
        let counters = harness.gateway.counters()
        #expect(counters.registrationsCreated == 1 && counters.registrationsFailed == 0)
        #expect(counters.atCommands >= 25, "probe (18) + bring-up (4) + registration + poll")
        #expect(counters.atTimeouts == 0)
    }

    @Test("a failed bring-up backs off exponentially on the clock and is retried")
    func failedBringUpBacksOff() async throws {
        // Plain 27.007 has no way to choose a radio technology: the bring-up fails at once.
        let sim = try SimulatorFixture(["generic"])
        let harness = try GatewayHarness(configuration: .testing(plan: ModemBringUpPlan(technologies: [.nbIoT])))
        let path = sim.path()
        harness.appear(path)
        let first = try await harness.expect(path, .failed)
        #expect(first.failure?.code == .bringUpFailed)
        #expect(first.reason?.code == "BRING_UP_FAILED")
        let row = try #require(try harness.registry.modems.find(imeiOrPort: path))
        #expect(row.state == "failed" && row.attempts == 1)
        #expect(row.lastError?.code == "BRING_UP_FAILED" && row.retryAt != nil)
        #expect(row.reason?.code == "BRING_UP_FAILED")
        #expect(harness.gateway.counters().registrationsCreated == 0, "never registered with the cloud")

        // First backoff: 1 s. Nothing happens a millisecond before it.
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .milliseconds(999))
        #expect(harness.clock.sleeperCount == 1, "still waiting out the backoff")
        #expect(await harness.history(of: path).last == .failed)
        harness.clock.advance(by: .milliseconds(1))
        try await harness.expect(path, .probing)
        let second = try await harness.expect(path, .failed)
        #expect(second.failure?.code == .bringUpFailed)
        #expect(try harness.registry.modems.find(imeiOrPort: path)?.attempts == 2)

        // Second backoff: 2 s.
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        #expect(harness.clock.sleeperCount == 1, "the second backoff is twice the first")
        #expect(await harness.history(of: path).last == .failed)
        harness.clock.advance(by: .seconds(1))
        try await harness.expect(path, .probing)
        try await harness.expect(path, .failed)
        #expect(try harness.registry.modems.find(imeiOrPort: path)?.attempts == 3)
        #expect(sim.simulator.statistics()[0].reboots == 0, "a refused setting is no reason to reset the module")
    }

    @Test("a reboot banner while ready re-initialises the module from the probe, to ready again")
    func rebootReinitialises() async throws {
        let sim = try SimulatorFixture(["bg95"])
        let harness = try GatewayHarness()
        let path = sim.path()
        harness.appear(path)
        let before = try await harness.expect(path, .ready)
        sim.simulator.inject(.reboot(afterCommands: 0), port: 0)
        try await harness.expect(path, .probing)
        let after = try await harness.expect(path, .ready)
        #expect(after.imei == before.imei && after.deviceID == before.deviceID)
        #expect(sim.simulator.statistics()[0].reboots == 1)
        #expect(!(await harness.history(of: path)).contains(.failed), "a reboot while ready is no failure")
        let counters = harness.gateway.counters()
        #expect(counters.registrationsCreated == 1 && counters.registrationsExisting == 1)
        #expect(try harness.registry.modems.all().count == 1)
    }

    @Test("a hang-up marks the modem absent and stops its supervisor; the other port carries on")
    func hangUpIsAbsent() async throws {
        let sim = try SimulatorFixture(["bg95", "sim7080"])
        let harness = try GatewayHarness()
        harness.appear(sim.path(0))
        harness.appear(sim.path(1))
        try await harness.expect(sim.path(0), .ready)
        try await harness.expect(sim.path(1), .ready)
        sim.simulator.inject(.hangUp(afterCommands: 0), port: 0)
        let gone = try await harness.expect(sim.path(0), .absent)
        #expect(gone.failure?.code == .deadPort)
        let row = try #require(try harness.registry.modems.find(imeiOrPort: SimulatedFamily.bg95.imei(port: 0)))
        #expect(row.state == "absent" && row.deviceID != nil)
        #expect(harness.gateway.snapshot()[.absent] == 1 && harness.gateway.snapshot()[.ready] == 1)
        #expect(try harness.registry.modems.find(imeiOrPort: sim.path(1))?.state == "ready")

        // The live port still answers; shutting the gateway down closes it within a bounded time.
        let clock = ContinuousClock()
        let start = clock.now
        await harness.shutDown()
        #expect(start.duration(to: clock.now) < .seconds(3))
        #expect(try harness.registry.modems.find(imeiOrPort: sim.path(1))?.state == "absent")
    }

    @Test("a vanished port is cancelled at once, even while a command waits for an answer that never comes")
    func vanishedDuringABlockedQuery() async throws {
        let sim = try SimulatorFixture(["bg95,fault=no-answer:AT+CGMI"])
        let harness = try GatewayHarness(
            configuration: .testing(
                probe: ModemProbeOptions(queryTimeout: .seconds(20), rebootRecoveryBudget: .seconds(10))
            )
        )
        let path = sim.path()
        harness.appear(path)
        try await harness.expect(path, .probing)
        // Wait until AT+CGMI went out and hangs (a 20 s query timeout).
        try await eventually("AT+CGMI is in flight") { sim.simulator.statistics()[0].commands >= 4 }
        let clock = ContinuousClock()
        let start = clock.now
        harness.vanish(path)
        try await harness.expect(path, .absent, within: .seconds(3))
        #expect(start.duration(to: clock.now) < .seconds(2))
        #expect(try harness.registry.modems.find(imeiOrPort: path)?.state == "absent")
        harness.endEvents()
        await harness.finished()
    }

    @Test("the same IMEI on another port keeps its one modem row and its device id")
    func replugOnAnotherPort() async throws {
        let harness = try GatewayHarness()
        let imei = SimulatedFamily.bg95.imei(port: 0)
        let first = try SimulatorFixture(["bg95"])
        harness.appear(first.path())
        let original = try await harness.expect(first.path(), .ready)
        harness.vanish(first.path())
        try await harness.expect(first.path(), .absent)

        // The module comes back on another node (port index 0 of a new simulator: the same IMEI).
        let second = try SimulatorFixture(["bg95"])
        first.simulator.stop()
        #expect(second.path() != first.path())
        harness.appear(second.path())
        let replugged = try await harness.expect(second.path(), .ready)
        #expect(replugged.imei == imei && replugged.deviceID == original.deviceID)
        let rows = try harness.registry.modems.all().filter { $0.imei == imei }
        #expect(rows.count == 1)
        #expect(rows.first?.port == second.path() && rows.first?.deviceID == original.deviceID)
        #expect(try harness.registry.directory.devices().count == 1)
        #expect(harness.gateway.counters().registrationsExisting == 1)
    }

    @Test("two live ports with the same IMEI: one supervises the module, the other stops as a secondary interface")
    func oneSupervisorPerIMEI() async throws {
        let a = try SimulatorFixture(["bg95"])
        let b = try SimulatorFixture(["bg95"])
        let harness = try GatewayHarness()
        harness.appear(a.path())
        try await harness.expect(a.path(), .ready)
        harness.appear(b.path())
        let secondary = try await harness.expect(b.path(), .notModem)
        #expect(secondary.failure?.code == .secondaryInterface)
        #expect(secondary.failure?.message.contains(a.path()) == true)
        let row = try #require(try harness.registry.modems.find(imeiOrPort: b.path()))
        #expect(row.state == "not_modem" && row.imei == nil && row.lastError?.code == "SECONDARY_INTERFACE")
        #expect(try harness.registry.modems.find(imeiOrPort: SimulatedFamily.bg95.imei(port: 0))?.port == a.path())
    }

    @Test("a port that answers nothing becomes not_modem quickly and is never retried")
    func notAModemStops() async throws {
        let sim = try SimulatorFixture(["diag"])
        let harness = try GatewayHarness(
            configuration: .testing(probe: ModemProbeOptions(wakeAttempts: 2, wakeTimeout: .milliseconds(100)))
        )
        let clock = ContinuousClock()
        let start = clock.now
        harness.appear(sim.path(), baudRates: [115_200])
        let verdict = try await harness.expect(sim.path(), .notModem)
        // 5 speeds × 2 × 100 ms.
        #expect(start.duration(to: clock.now) < .seconds(2))
        #expect(verdict.failure?.code == .notAModem)
        // Its supervisor is done: the run ends with the events, however far the clock moves.
        harness.clock.advance(by: .seconds(3600))
        harness.endEvents()
        await harness.finished()
        #expect(await harness.history(of: sim.path()) == [.probing, .notModem])
        let row = try #require(try harness.registry.modems.find(imeiOrPort: sim.path()))
        #expect(row.state == "not_modem" && row.lastError?.code == "NOT_A_MODEM")
        #expect(harness.gateway.snapshot()[.notModem] == 1)
        #expect(harness.gateway.counters().atTimeouts == 0, "a silent port's wake-up ATs are no timeouts")
    }

    @Test("a four-interface module: the AT port is supervised, its silent siblings stop without finishing their probe")
    func siblingsStopEarly() async throws {
        let sim = try SimulatorFixture(["diag", "nmea", "bg95", "diag"])
        let harness = try GatewayHarness()
        let clock = ContinuousClock()
        let start = clock.now
        for index in 0..<4 {
            harness.appear(sim.path(index), deviceKey: "/sys/devices/usb1/1-1")
        }
        try await harness.expect(sim.path(2), .ready)
        for index in [0, 1, 3] {
            let stopped = try await harness.expect(sim.path(index), .notModem)
            #expect(stopped.failure?.code == .secondaryInterface)
        }
        // A silent port alone costs 5 speeds × 3 × 250 ms ≈ 3.8 s.
        #expect(start.duration(to: clock.now) < .seconds(3))
        #expect(harness.gateway.snapshot()[.notModem] == 3)
        #expect(try harness.registry.modems.all().filter { $0.state == "ready" }.map(\.port) == [sim.path(2)])
        #expect(try harness.registry.modems.find(imeiOrPort: sim.path(1))?.lastError?.code == "SECONDARY_INTERFACE")

        // A stopped port that goes away is absent; a late sibling is stopped at once.
        harness.vanish(sim.path(0))
        try await eventually("the vanished sibling's row is absent") {
            try harness.registry.modems.find(imeiOrPort: sim.path(0))?.state == "absent"
        }
        #expect(harness.gateway.states()[sim.path(0)] == .absent)
        harness.appear(sim.path(0), deviceKey: "/sys/devices/usb1/1-1")
        let late = try await harness.expect(sim.path(0), .notModem)
        #expect(late.failure?.code == .secondaryInterface && late.failure?.message.contains(sim.path(2)) == true)
        #expect(try harness.registry.modems.find(imeiOrPort: sim.path(0))?.state == "not_modem")
    }
}

/// Checks `condition` until it holds, failing after `timeout` of real time (for effects of real
/// pseudo-terminals that no event announces).
func eventually(
    _ what: String,
    within timeout: Duration = .seconds(5),
    _ condition: () throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out after \(timeout) waiting until \(what)")
}
