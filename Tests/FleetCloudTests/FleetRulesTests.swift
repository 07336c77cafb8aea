import DeviceIdentity
import Foundation
import NBGWCore
import Registry
import TestPostgres
import Testing
import TuyaCloud

@Suite("nbgw-cloud on PostgreSQL: keys, tenants, secrets and schema")
struct FleetRulesTests {
    @Test("A key sent again with the same request replays the first answer; with another body it is refused and writes nothing")
    func idempotencyKeysAnswerOnce() async throws {
        try await FleetFixture.with { fleet in
            let gateway = try FleetGateway(
                name: "gw",
                credentials: try await fleet.addGateway("gw"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            let key = IdempotencyKey.make()
            let first = try await gateway.http.createPairingToken(home: "lab", account: "alice", key: key)
            let again = try await gateway.http.createPairingToken(home: "lab", account: "alice", key: key)
            #expect(again.token == first.token)
            #expect(try await fleet.count("SELECT count(*) FROM pairing_token") == 1)
            let other = await errorOf { _ = try await gateway.http.createPairingToken(home: "attic", account: "alice", key: key) }
            #expect(other?.message.contains("idempotency key reused") == true, "\(String(describing: other))")
            #expect(try await fleet.count("SELECT count(*) FROM pairing_token") == 1)
            #expect(try await fleet.count("SELECT count(*) FROM home") == 1, "the refused request created no home")
            await gateway.shutdown()
        }
    }

    @Test("Another tenant's device is refused without naming anyone; its IMEI is not available here")
    func tenantsSeeNothingOfEachOther() async throws {
        try await FleetFixture.with { fleet in
            try await fleet.cloudSucceeds(["tenants", "add", "globex"])
            let acme = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            let globex = try FleetGateway(
                name: "g",
                credentials: try await fleet.addGateway("g", tenant: "globex"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            let imei = FleetIMEIs.make(1)[0]
            let device = try await acme.registrar.register(ModuleIdentity(imei: try IMEI(imei))).device.deviceID
            let token = try await acme.http.createPairingToken(home: "lab", account: "alice")
            _ = try await acme.http.bindInCloud(deviceID: device, account: "alice", home: "lab", token: token.token)

            let taken = await errorOf { _ = try await globex.registrar.register(ModuleIdentity(imei: try IMEI(imei))) }
            #expect(taken?.message.contains("not available to this tenant") == true, "\(String(describing: taken))")
            let theirs = try await globex.http.createPairingToken(home: "den", account: "mallory")
            let refused = await errorOf {
                _ = try await globex.http.bindInCloud(deviceID: device, account: "mallory", home: "den", token: theirs.token)
            }
            #expect(refused?.message.contains("device already bound") == true, "\(String(describing: refused))")
            #expect(refused?.message.contains("alice") == false, "the owner is not named across tenants")
            #expect(refused?.message.contains("through gateway") == false)
            #expect(try await globex.http.cloudModules().isEmpty)
            #expect(try await globex.http.cloudBindings().isEmpty)
            await acme.shutdown()
            await globex.shutdown()
        }
    }

    @Test("A rotated gateway signs with either secret; a retired one is refused; the last one cannot be retired")
    func secretsRotateWithoutDowntime() async throws {
        try await FleetFixture.with { fleet in
            let old = try await fleet.addGateway("gw")
            let rotated = try await fleet.cloudSucceeds(["credentials", "rotate", "--tenant", "acme", "--key-file", fleet.keyFile, "--json", "gw"])
            struct Printed: Decodable {
                var client_id: String
                var secret: String
                var slot: Int
            }
            let printed = try JSONDecoder().decode(Printed.self, from: Data(rotated.utf8))
            #expect(printed.client_id == old.clientID && printed.slot == 2)
            let new = try CloudCredentials(clientID: printed.client_id, secret: printed.secret)
            for credentials in [old, new] {
                let gateway = try FleetGateway(name: "gw", credentials: credentials, baseURL: fleet.nodes[0].baseURL, directory: fleet.directory)
                _ = try await gateway.http.cloudModules()
                await gateway.shutdown()
            }
            try await fleet.cloudSucceeds(["credentials", "retire", "--tenant", "acme", "--slot", "1", "gw"])
            let last = await fleet.cloud(["credentials", "retire", "--tenant", "acme", "--slot", "2", "gw"])
            #expect(last.status != 0 && last.errors.contains("only secret"), "\(last.errors)")
            // The retired secret stops working once the node's 5 s credential cache lets it go.
            try await Task.sleep(for: .seconds(6))
            let gateway = try FleetGateway(name: "gw2", credentials: old, baseURL: fleet.nodes[0].baseURL, directory: fleet.directory)
            let refused = await errorOf { _ = try await gateway.http.cloudModules() }
            #expect(refused?.message.contains("sign invalid") == true, "\(String(describing: refused))")
            await gateway.shutdown()
            #expect(try await fleet.sql("SELECT encode(sealed_secret, 'escape') FROM credential").contains(printed.secret) == false)
        }
    }

    @Test("A node refuses to serve a database it was not migrated for and says what to run")
    func nodesRefuseUnknownSchemas() async throws {
        let postgres = try await TestPostgres.cluster()
        let url = try await postgres.makeDatabase()
        let directory = URL(fileURLWithPath: "/tmp/nbgw-fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ProcessInfo.processInfo.environment.merging(
            ["NBGW_CLOUD_DATABASE": url, "NBGW_CLOUD_DATABASE_PASSWORD": postgres.password]
        ) { $1 }
        let binary = postgres.root.appendingPathComponent(".build/debug/nbgw-cloud").path
        let key = directory.appendingPathComponent("k").path
        #expect(await TestPostgres.run(binary, ["key", "create", "--key-file", key], environment: environment).0 == 0)
        let unmigrated = await TestPostgres.run(binary, ["serve", "--listen", "127.0.0.1:0", "--key-file", key], environment: environment)
        #expect(unmigrated.0 != 0 && unmigrated.2.contains("run `nbgw-cloud migrate` first"), "\(unmigrated.2)")
        // Two migrations at once: each version applied once, under the lock.
        async let one = TestPostgres.run(binary, ["migrate"], environment: environment)
        async let two = TestPostgres.run(binary, ["migrate"], environment: environment)
        let outputs = await [one, two]
        #expect(outputs.allSatisfy { $0.0 == 0 }, "\(outputs)")
        #expect(outputs.filter { $0.1.contains("applied migrations 1") }.count == 1, "\(outputs)")
        let database = String(url[url.index(after: url.lastIndex(of: "/")!)...])
        try await postgres.psql("INSERT INTO nbgw_schema (version) VALUES (99)", database: database)
        let newer = await TestPostgres.run(binary, ["serve", "--listen", "127.0.0.1:0", "--key-file", key], environment: environment)
        #expect(newer.0 != 0 && newer.2.contains("upgrade this node"), "\(newer.2)")
    }
}

extension FleetRulesTests {
    @Test("A wrong database password is refused at once, naming the database and what to check, never the password")
    func wrongDatabasePasswordsSayWhat() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            var environment = fleet.environment
            environment["NBGW_CLOUD_DATABASE_PASSWORD"] = "not-the-password-42"
            let started = ContinuousClock.now
            let (status, _, errors) = await TestPostgres.run(fleet.binary, ["migrate"], environment: environment)
            #expect(status != 0)
            #expect(errors.contains("password authentication failed") && errors.contains("check the password"), "\(errors)")
            #expect(errors.contains(fleet.databaseURL))
            #expect(!errors.contains("not-the-password-42"))
            // The pool alone gives up after about 68 s with "circuit breaker tripped".
            #expect(started.duration(to: .now) < .seconds(30))
        }
    }
}

/// Runs `body` and returns the `NBGWError` it threw (nil when it did not throw).
func errorOf(_ body: () async throws -> Void) async -> NBGWError? {
    do {
        try await body()
        return nil
    } catch let error as NBGWError {
        return error
    } catch {
        return NBGWError(.internalError, "unexpected \(type(of: error)): \(error)")
    }
}
