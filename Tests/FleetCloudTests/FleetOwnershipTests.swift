import DeviceIdentity
import Foundation
import NBGWCore
import Registry
import Testing
import TuyaCloud

@Suite("nbgw-cloud on PostgreSQL: one owner per device across every gateway")
struct FleetOwnershipTests {
    @Test(
        "32 gateways bind the same 100 devices through their outboxes against two nodes: one owner each, losers dead naming it"
    )
    func thirtyTwoGatewaysRaceForOneHundredDevices() async throws {
        try await FleetFixture.with(nodes: 2) { fleet in
            let imeis = FleetIMEIs.make(100)
            var gateways: [FleetGateway] = []
            for index in 0..<32 {
                let name = "gw\(index)"
                let credentials = try await fleet.addGateway(name)
                let node = fleet.nodes[index % fleet.nodes.count]
                let gateway = try FleetGateway(
                    name: name,
                    credentials: credentials,
                    baseURL: node.baseURL,
                    directory: fleet.directory
                )
                try gateway.addAccount("owner\(index)")
                gateways.append(gateway)
            }
            // Every gateway registers every module (add-or-find by IMEI: the same device ids).
            let deviceIDs = try await withThrowingTaskGroup(of: [String].self) { group in
                for gateway in gateways {
                    group.addTask {
                        var ids: [String] = []
                        for imei in imeis {
                            ids.append(try await gateway.registrar.register(ModuleIdentity(imei: try IMEI(imei))).device.deviceID)
                        }
                        return ids
                    }
                }
                var all: [[String]] = []
                for try await ids in group { all.append(ids) }
                return all
            }
            #expect(Set(deviceIDs.map { $0 }).count == 1, "every gateway got the same device ids")
            #expect(try await fleet.count("SELECT count(*) FROM device") == 100)

            // Each binds all 100 to its own owner locally, then the outboxes race to the cloud.
            for (index, gateway) in gateways.enumerated() {
                for deviceID in deviceIDs[0] { _ = try gateway.bindQueued(deviceID, account: "owner\(index)") }
            }
            await withTaskGroup(of: Void.self) { group in
                for gateway in gateways { group.addTask { _ = await gateway.drain() } }
            }

            #expect(try await fleet.count("SELECT count(*) FROM binding") == 100)
            #expect(try await fleet.count("SELECT count(*) FROM pairing_token WHERE used_at IS NOT NULL") == 100)
            #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'bound'") == 100)
            // Who owns what, in one query: device id → (account, gateway).
            var owners: [String: (account: String, gateway: String)] = [:]
            for line in try await fleet.sql("SELECT device_id || ' ' || uid || ' ' || gateway FROM binding")
                .split(separator: "\n")
            {
                let parts = line.split(separator: " ").map(String.init)
                owners[parts[0]] = (parts[1], parts[2])
            }
            var done = 0
            for (index, gateway) in gateways.enumerated() {
                let binds = try gateway.registry.outbox.entries(limit: 1000).filter { $0.operation == .bind }
                #expect(binds.count == 100)
                for row in binds {
                    switch row.state {
                    case .done:
                        done += 1
                        #expect(owners[row.subject]?.gateway == "gw\(index)")
                    case .dead:
                        let owner = try #require(owners[row.subject])
                        #expect(
                            row.lastError?.contains("bound \"to account \(owner.account) through gateway \(owner.gateway)\" (cloud code 3002)") == true,
                            "\(row.lastError ?? "")"
                        )
                    default:
                        Issue.record("outbox row \(row.id) of gw\(index) ended \(row.state)")
                    }
                }
            }
            #expect(done == 100, "exactly one gateway's row per device is done")
            #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'conflict'") == 3100)
            for gateway in gateways { await gateway.shutdown() }
        }
    }
}
