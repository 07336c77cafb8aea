import ATKit
import Foundation
import Gateway
import ModemSimulatorKit
import Registry
import Testing

/// The supervisor claims and records a module's IMEI as soon as the probe has read it, while the
/// rest of the probe (SIM, registration, signal, operator) still runs. The modules here never
/// answer `AT+CPIN?` and the probe waits 30 s for it, so anything seen within the harness's 10 s
/// happened while the probe was blocked after the IMEI.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct EarlyIdentificationTests {
    /// Probe options whose unanswered `AT+CPIN?` holds the probe far longer than any expectation waits.
    static let slowProbe = ModemProbeOptions(queryTimeout: .seconds(30), rebootRecoveryBudget: .seconds(10))

    @Test("the IMEI row is recorded while the probe's later queries are still waiting for an answer")
    func imeiRowWhileProbing() async throws {
        let sim = try SimulatorFixture(["bg95,fault=no-answer:AT+CPIN"])
        let harness = try GatewayHarness(configuration: .testing(probe: Self.slowProbe))
        let path = sim.path()
        let imei = SimulatedFamily.bg95.imei(port: 0)
        harness.appear(path)
        let identified = try await harness.expect(path, "get its IMEI while probing") {
            $0.state == .probing && $0.imei != nil
        }
        #expect(identified.imei == imei)

        let row = try #require(try harness.registry.modems.find(imeiOrPort: imei))
        #expect(row.port == path && row.state == "probing")
        #expect(row.dialect == "quectel-bg9x" && row.manufacturer == "Quectel" && row.model == "BG95-M3")
        #expect(row.firmware == "BG95M3LAR02A03" && row.baud == 115_200)
        #expect(row.imsi == nil && row.iccid == nil, "read after the IMEI: not yet")
        #expect(try harness.registry.modems.all().count == 1)
        #expect(await harness.history(of: path) == [.probing, .probing])
        #expect(harness.gateway.states() == [path: .probing])

        // The probe is still blocked on AT+CPIN?; removing the port ends it, and the row with it.
        harness.vanish(path)
        try await harness.expect(path, .absent)
        #expect(try harness.registry.modems.find(imeiOrPort: imei)?.state == "absent")
    }

    @Test(
        "a second port with an IMEI already supervised stops as soon as it reads the IMEI, without the rest of its probe"
    )
    func secondaryStopsAtTheIMEI() async throws {
        let a = try SimulatorFixture(["bg95"])
        let b = try SimulatorFixture(["bg95,fault=no-answer:AT+CPIN"])
        let harness = try GatewayHarness(configuration: .testing(probe: Self.slowProbe))
        harness.appear(a.path())
        try await harness.expect(a.path(), .ready)

        harness.appear(b.path())
        let secondary = try await harness.expect(b.path(), .notModem)
        #expect(secondary.failure?.code == .secondaryInterface)
        #expect(secondary.failure?.message.contains(a.path()) == true)
        #expect(await harness.history(of: b.path()) == [.probing, .notModem], "never identified as its own module")
        let row = try #require(try harness.registry.modems.find(imeiOrPort: b.path()))
        #expect(row.state == "not_modem" && row.imei == nil && row.lastError?.code == "SECONDARY_INTERFACE")
        let module = try #require(try harness.registry.modems.find(imeiOrPort: SimulatedFamily.bg95.imei(port: 0)))
        #expect(module.port == a.path() && module.state == "ready")
        #expect(harness.gateway.states() == [a.path(): .ready, b.path(): .notModem])
    }

    @Test("a probe that fails after the early IMEI claim fails as before: the row goes failed and the port is retried")
    func probeFailureAfterTheEarlyClaim() async throws {
        // Two queries after the IMEI go unanswered in a row: the probe gives the module up.
        let sim = try SimulatorFixture(["bg95,fault=no-answer:AT+CPIN,fault=no-answer:AT+CIMI"])
        let harness = try GatewayHarness()
        let path = sim.path()
        let imei = SimulatedFamily.bg95.imei(port: 0)
        harness.appear(path)
        try await harness.expect(path, "get its IMEI while probing") { $0.state == .probing && $0.imei == imei }
        let failed = try await harness.expect(path, .failed)
        #expect(failed.failure?.code == .modemError && failed.imei == imei)

        let row = try #require(try harness.registry.modems.find(imeiOrPort: path))
        #expect(row.imei == imei && row.state == "failed" && row.attempts == 1 && row.retryAt != nil)
        #expect(row.lastError?.code == "MODEM_ERROR")
        #expect(try harness.registry.modems.all().count == 1)
        #expect(!(await harness.history(of: path)).contains(.configuring), "no bring-up after a failed probe")

        // Retried after the backoff (1 s of the manual clock), on the same row and the same claim.
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: .seconds(1))
        try await harness.expect(path, .probing)
        try await harness.expect(path, "get its IMEI again") { $0.state == .probing && $0.imei == imei }
        try await harness.expect(path, .failed)
        #expect(try harness.registry.modems.find(imeiOrPort: imei)?.attempts == 2)
        #expect(try harness.registry.modems.all().count == 1)
    }
}
