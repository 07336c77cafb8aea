import Foundation
import NBGWCore
import TestPostgres
import TuyaCloud

/// A fleet on this machine: a database of the process's private PostgreSQL cluster, migrated by
/// the real `nbgw-cloud migrate`, a key file made by `nbgw-cloud key create`, and `nbgw-cloud
/// serve` nodes as real processes on ephemeral loopback ports.
final class FleetFixture: @unchecked Sendable {
    let postgres: TestPostgres
    let databaseURL: String
    let directory: URL
    private(set) var nodes: [FleetNodeProcess] = []

    var keyFile: String { directory.appendingPathComponent("cloud.key").path }
    var binary: String { postgres.root.appendingPathComponent(".build/debug/nbgw-cloud").path }

    /// The environment every `nbgw-cloud` runs with: the database and its password, never argv.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["NBGW_CLOUD_DATABASE"] = databaseURL
        environment["NBGW_CLOUD_DATABASE_PASSWORD"] = postgres.password
        environment["NBGW_CLOUD_LOG_LEVEL"] = "warning"
        return environment
    }

    private init(postgres: TestPostgres, databaseURL: String, directory: URL) {
        self.postgres = postgres
        self.databaseURL = databaseURL
        self.directory = directory
    }

    /// A migrated database with tenant `acme`, and `nodes` nodes serving it.
    static func with<T>(
        nodes: Int = 1,
        serveArguments: [String] = ["--tenant-rate", "0"],
        _ body: (FleetFixture) async throws -> T
    ) async throws -> T {
        let postgres = try TestPostgres.cluster()
        let directory = URL(fileURLWithPath: "/tmp/nbgw-fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixture = FleetFixture(postgres: postgres, databaseURL: try postgres.makeDatabase(), directory: directory)
        defer {
            for node in fixture.nodes { node.kill() }
            try? FileManager.default.removeItem(at: directory)
        }
        try fixture.cloudSucceeds(["key", "create", "--key-file", fixture.keyFile])
        try fixture.cloudSucceeds(["migrate"])
        try fixture.cloudSucceeds(["tenants", "add", "acme"])
        for _ in 0..<nodes {
            try await fixture.startNode(serveArguments)
        }
        return try await body(fixture)
    }

    /// Runs `nbgw-cloud` with `arguments`; returns status, output and errors.
    @discardableResult
    func cloud(_ arguments: [String]) -> (status: Int32, output: String, errors: String) {
        let (status, output, errors) = TestPostgres.run(binary, arguments, environment: environment)
        return (status, output, errors)
    }

    @discardableResult
    func cloudSucceeds(_ arguments: [String]) throws -> String {
        let (status, output, errors) = cloud(arguments)
        guard status == 0 else {
            throw TestPostgresError("nbgw-cloud \(arguments.joined(separator: " ")) exited \(status): \(errors)")
        }
        return output
    }

    /// A new gateway of `tenant` and its credentials (`gateways add --json`).
    func addGateway(_ name: String, tenant: String = "acme") throws -> CloudCredentials {
        let output = try cloudSucceeds(["gateways", "add", "--tenant", tenant, "--key-file", keyFile, "--json", name])
        struct Printed: Decodable {
            var client_id: String
            var secret: String
        }
        let printed = try JSONDecoder().decode(Printed.self, from: Data(output.utf8))
        return try CloudCredentials(clientID: printed.client_id, secret: printed.secret)
    }

    /// Starts one more node; returns it once it listens.
    @discardableResult
    func startNode(_ arguments: [String] = ["--tenant-rate", "0"]) async throws -> FleetNodeProcess {
        let node = try FleetNodeProcess(
            binary: binary,
            arguments: ["serve", "--listen", "127.0.0.1:0", "--key-file", keyFile] + arguments,
            environment: environment
        )
        nodes.append(node)
        return node
    }

    /// One row of SQL through psql on this fixture's database.
    func sql(_ query: String) throws -> String {
        let name = String(databaseURL[databaseURL.index(after: databaseURL.lastIndex(of: "/")!)...])
        return try postgres.psql(query, database: name).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func count(_ query: String) throws -> Int {
        let text = try sql(query)
        guard let value = Int(text) else { throw TestPostgresError("\(query) gave \(text.debugDescription)") }
        return value
    }
}

/// One `nbgw-cloud serve` process.
final class FleetNodeProcess: @unchecked Sendable {
    let process: Process
    let port: Int
    private let output: Pipe

    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(binary: String, arguments: [String], environment: [String: String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = environment
        output = Pipe()
        process.standardOutput = output
        try process.run()
        // The node prints one line once it listens; anything else first is a failure to start.
        var line = Data()
        let handle = output.fileHandleForReading
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on "), let colon = text.lastIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...])
        else {
            process.terminate()
            process.waitUntilExit()
            throw TestPostgresError("nbgw-cloud serve did not start (exit \(process.terminationStatus)): \(text)")
        }
        self.port = port
    }

    /// SIGTERM, then waits: the node's graceful stop.
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL: a node that dies mid-request.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
