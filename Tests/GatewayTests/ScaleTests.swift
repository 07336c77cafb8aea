import ATKit
import Foundation
import Gateway
import ModemSimulatorKit
import Registry
import Testing

/// Many modules through one gateway at once.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ScaleTests {
    static let families = ["bg95", "sim7080", "bc66", "sara-r410", "nrf9160", "generic", "bc95"]

    @Test("64 simulated modules of seven families reach ready through one gateway, each with its own data")
    func sixtyFourModems() async throws {
        let specs = (0..<64).map { Self.families[$0 % Self.families.count] }
        let sim = try SimulatorFixture(specs)
        // The default query timeout (3 s): 64 sessions share two cores in a debug build.
        let harness = try GatewayHarness(
            configuration: .testing(probe: ModemProbeOptions(rebootRecoveryBudget: .seconds(10)))
        )
        let clock = ContinuousClock()
        let start = clock.now
        for port in sim.ports {
            harness.appear(port.path)
        }
        var deviceIDs: Set<String> = []
        for port in sim.ports {
            let ready = try await harness.expect(port.path, .ready, within: .seconds(40))
            let family = try #require(SimulatedFamily.named(port.family))
            #expect(ready.imei == family.imei(port: port.index), "\(port.family) on \(port.path)")
            deviceIDs.insert(try #require(ready.deviceID))
        }
        let elapsed = start.duration(to: clock.now)
        print("64 modems to ready in \(elapsed)")
        #expect(deviceIDs.count == 64)
        #expect(harness.gateway.snapshot()[.ready] == 64)

        let rows = try harness.registry.modems.all()
        #expect(rows.count == 64)
        for port in sim.ports {
            let family = try #require(SimulatedFamily.named(port.family))
            let row = try #require(rows.first { $0.port == port.path })
            #expect(row.state == "ready")
            #expect(row.imei == family.imei(port: port.index))
            #expect(row.manufacturer == family.manufacturer && row.model == family.model)
            #expect(row.baud == family.nominalBaud)
            let device = try #require(try harness.registry.directory.device(imei: family.imei(port: port.index)))
            #expect(row.deviceID == device.deviceID)
            #expect(row.registration.stat == 1, "\(port.family) on \(port.path)")
        }
        let counters = harness.gateway.counters()
        #expect(counters.registrationsCreated == 64 && counters.registrationsFailed == 0)
        #expect(try harness.registry.directory.devices().count == 64)
        await harness.shutDown()
        #expect(try harness.registry.modems.all().allSatisfy { $0.state == "absent" })
    }
}
