import Foundation
import Testing

@Suite("nbgw CLI: concurrent binds from separate processes")
struct CLIRaceTests {
    @Test(
        "32 processes binding one device to 32 accounts: exactly 1 bound, 31 DEVICE_ALREADY_BOUND, one row, consistent audit"
    )
    func thirtyTwoWayRace() throws {
        let cli = try CLI()
        let registered = try cli.run("devices", "register", "--imei", "490154203237518", "--json")
        let id = registered.json["deviceId"] as? String ?? ""
        let label = registered.json["qr"] as? String ?? ""
        for index in 0..<32 {
            try cli.run("accounts", "add", "owner-\(index)")
            try cli.run("homes", "add", "home-\(index)", "--owner", "owner-\(index)")
        }
        // Start all 32 before collecting any, so they really contend for the write lock.
        let started = try (0..<32).map { index in
            try cli.start(["bind", "--qr", label, "--account", "owner-\(index)", "--home", "home-\(index)", "--json"])
        }
        let results = started.map(CLI.finish)
        let statuses = results.map(\.status)
        #expect(statuses.filter { $0 == 0 }.count == 1, "\(results.map(\.stdout))")
        #expect(statuses.filter { $0 == 21 }.count == 31)
        #expect(results.filter { $0.errorCode == "DEVICE_ALREADY_BOUND" }.count == 31)
        let winner = results.first { $0.status == 0 }?.json["account"] as? String

        let bindings = try cli.run("bindings", "list", "--json").json["bindings"] as? [[String: Any]] ?? []
        #expect(bindings.count == 1)
        #expect(bindings.first?["account"] as? String == winner)

        let show = try cli.run("devices", "show", id, "--json").json
        let audit = show["audit"] as? [[String: Any]] ?? []
        let binds = audit.filter { $0["event"] as? String == "bind" }
        let rejected = audit.filter { $0["event"] as? String == "bind_rejected" }
        #expect(binds.count == 1)
        #expect(binds.first?["account"] as? String == winner)
        #expect(rejected.count == 31)
        #expect(rejected.allSatisfy { $0["code"] as? String == "DEVICE_ALREADY_BOUND" })
        #expect(Set(rejected.compactMap { $0["account"] as? String }).count == 31)
    }
}
