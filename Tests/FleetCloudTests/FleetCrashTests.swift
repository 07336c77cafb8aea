import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import Registry
import Testing
import TuyaCloud

@Suite("nbgw-cloud on PostgreSQL: nothing lost when a node dies")
struct FleetCrashTests {
    @Test("A node killed with SIGKILL 20 times mid-request while gateways retry with the same keys: every effect once")
    func nodesKilledMidRequest() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            let port = Int.random(in: 20_000...32_000)
            try await fleet.startNode(port: port)
            let url = "http://127.0.0.1:\(port)"
            // Retries close together: a killed node is back within a second.
            let retries = RetryPolicy(maxAttempts: 20, initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))
            var gateways: [FleetGateway] = []
            var deviceIDs: [[String]] = []
            for index in 0..<8 {
                let gateway = try FleetGateway(
                    name: "gw\(index)",
                    credentials: try await fleet.addGateway("gw\(index)"),
                    baseURL: url,
                    directory: fleet.directory,
                    retries: retries
                )
                try gateway.addAccount("owner\(index)")
                var ids: [String] = []
                for imei in FleetIMEIs.make(25, base: 35_693_803_100_000 + index * 100) {
                    ids.append(try await gateway.registrar.register(ModuleIdentity(imei: try IMEI(imei))).device.deviceID)
                }
                for id in ids { _ = try gateway.bindQueued(id, account: "owner\(index)") }
                gateways.append(gateway)
                deviceIDs.append(ids)
            }
            // The outboxes drain while the node is killed and started again, 20 times.
            let draining = gateways
            let drains = Task {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for gateway in draining { group.addTask { try await gateway.drainUntilSettled(within: .seconds(240)) } }
                    var all = true
                    for try await settled in group { all = all && settled }
                    return all
                }
            }
            for _ in 0..<20 {
                try await Task.sleep(for: .milliseconds(Int.random(in: 50...400)))
                await fleet.nodes.last!.kill()
                try await fleet.startNode(port: port)
            }
            #expect(try await drains.value, "every outbox settled")

            #expect(try await fleet.count("SELECT count(*) FROM binding") == 200)
            #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'bound'") == 200, "one event per bind")
            #expect(try await fleet.count("SELECT count(*) FROM pairing_token WHERE used_at IS NOT NULL") == 200)
            // Each bind's key answered and kept once, whatever the number of tries it took.
            #expect(try await fleet.count("SELECT count(*) FROM idempotency WHERE response LIKE '%\"status\":\"bound\"%'") == 200)
            for (index, gateway) in gateways.enumerated() {
                let rows = try gateway.registry.outbox.entries(limit: 1000).filter { $0.operation == .bind }
                #expect(rows.count == 25)
                for row in rows {
                    #expect(row.state == .done, "gw\(index) row \(row.id): \(row.state) \(row.lastError ?? "")")
                }
                await gateway.shutdown()
            }
        }
    }
}
