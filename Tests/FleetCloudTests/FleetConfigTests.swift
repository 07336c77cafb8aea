import Foundation
import NBGWCore
import TestPostgres
import Testing
import TuyaCloud

/// `nbgw-cloud serve --config FILE`: a node configured by its file alone, as the systemd unit
/// runs it, and a file with a mistake refused naming the key.
@Suite("Fleet cloud: the config file")
struct FleetConfigTests {
    @Test("A node serves from its config file alone: database, password file, key file, listener, labels")
    func nodesRunFromTheirConfigFile() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            let passwordFile = fleet.directory.appendingPathComponent("dbpass").path
            try Data(fleet.postgres.password.utf8).write(to: URL(fileURLWithPath: passwordFile))
            chmod(passwordFile, 0o600)
            let config = fleet.directory.appendingPathComponent("nbgw-cloud.toml").path
            try Data(
                """
                database = "\(fleet.databaseURL)"
                database_password_file = "\(passwordFile)"
                key_file = "\(fleet.keyFile)"
                listen = "127.0.0.1:0"
                tenant_rate = 0
                max_connections = 64
                label_base = "https://label.fleet.invalid/d/"

                """.utf8
            ).write(to: URL(fileURLWithPath: config))
            var environment = fleet.environment
            environment["NBGW_CLOUD_DATABASE"] = nil
            environment["NBGW_CLOUD_DATABASE_PASSWORD"] = nil
            let (binary, env) = (fleet.binary, environment)
            let node = try await TestPostgres.offPool {
                try FleetNodeProcess(binary: binary, arguments: ["serve", "--config", config], environment: env)
            }
            let credentials = try await fleet.addGateway("gw")
            let gateway = try FleetGateway(
                name: "gw",
                credentials: credentials,
                baseURL: node.baseURL,
                directory: fleet.directory
            )
            let parsed = await errorOf {
                _ = try await gateway.http.cloudModules()
            }
            #expect(parsed == nil, "\(String(describing: parsed))")
            await gateway.shutdown()
            await node.kill()
        }
    }

    @Test("A config file with an unknown key or a wrong type stops the node, naming the file and the key")
    func configMistakesAreNamed() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            let config = fleet.directory.appendingPathComponent("bad.toml").path
            try Data("listen = \"127.0.0.1:0\"\nlisten_port = 8443\n".utf8).write(to: URL(fileURLWithPath: config))
            let unknown = await fleet.cloud(["serve", "--config", config])
            #expect(unknown.status != 0)
            #expect(unknown.errors.contains(config) && unknown.errors.contains("\"listen_port\""), "\(unknown.errors)")
            try Data("max_connections = \"many\"\n".utf8).write(to: URL(fileURLWithPath: config))
            let typed = await fleet.cloud(["serve", "--config", config])
            #expect(
                typed.status != 0 && typed.errors.contains("max_connections must be a whole number"),
                "\(typed.errors)"
            )
        }
    }

    @Test("The node's systemd unit passes systemd-analyze verify without a warning")
    func theUnitVerifies() async throws {
        let postgres = try await TestPostgres.cluster()
        let root = postgres.root
        let unit = try String(
            contentsOf: root.appendingPathComponent("packaging/systemd/nbgw-cloud.service"),
            encoding: .utf8
        )
        // The built binary stands in for /usr/bin/nbgw-cloud (verify checks that it exists).
        let built = root.appendingPathComponent(".build/debug/nbgw-cloud").path
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-cloud-\(UUID().uuidString).service")
        try unit.replacingOccurrences(of: "/usr/bin/nbgw-cloud", with: built).write(to: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: path) }
        let (status, _, errors) = await TestPostgres.run("/usr/bin/systemd-analyze", ["verify", path.path])
        #expect(status == 0 && errors.isEmpty, "\(errors)")
    }
}
