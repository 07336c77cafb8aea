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

    /// A migrated database with tenant `acme`, and `nodes` nodes serving it; on the process's
    /// cluster unless `postgres` is given (``withPrivateCluster(durable:nodes:_:)``).
    static func with<T>(
        nodes: Int = 1,
        serveArguments: [String] = ["--tenant-rate", "0"],
        postgres: TestPostgres? = nil,
        _ body: (FleetFixture) async throws -> T
    ) async throws -> T {
        let cluster: TestPostgres
        if let postgres { cluster = postgres } else { cluster = try await TestPostgres.cluster() }
        let directory = URL(fileURLWithPath: "/tmp/nbgw-fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let databaseURL = try await cluster.makeDatabase()
        let fixture = FleetFixture(postgres: cluster, databaseURL: databaseURL, directory: directory)
        do {
            let result = try await fixture.setUp(nodes: nodes, serveArguments: serveArguments, body)
            await fixture.tearDown()
            return result
        } catch {
            await fixture.tearDown()
            throw error
        }
    }

    /// ``with(nodes:serveArguments:postgres:_:)`` on a PostgreSQL cluster of this test's own, removed
    /// after: for a test that stops or crashes the server, or holds transactions open (the
    /// process's cluster is shared by the tests running in parallel).
    static func withPrivateCluster<T>(
        durable: Bool,
        nodes: Int = 1,
        _ body: (FleetFixture) async throws -> T
    ) async throws -> T {
        let postgres = try await TestPostgres.privateCluster(durable: durable)
        do {
            let result = try await with(nodes: nodes, postgres: postgres, body)
            await postgres.remove()
            return result
        } catch {
            await postgres.remove()
            throw error
        }
    }

    private func setUp<T>(
        nodes: Int,
        serveArguments: [String],
        _ body: (FleetFixture) async throws -> T
    ) async throws -> T {
        let fixture = self
        try await fixture.cloudSucceeds(["key", "create", "--key-file", fixture.keyFile])
        try await fixture.cloudSucceeds(["migrate"])
        try await fixture.cloudSucceeds(["tenants", "add", "acme"])
        for _ in 0..<nodes {
            try await fixture.startNode(serveArguments)
        }
        return try await body(fixture)
    }

    private func tearDown() async {
        for node in nodes { await node.kill() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `nbgw-cloud` with `arguments`; returns status, output and errors.
    @discardableResult
    func cloud(_ arguments: [String]) async -> (status: Int32, output: String, errors: String) {
        let (status, output, errors) = await TestPostgres.run(binary, arguments, environment: environment)
        return (status, output, errors)
    }

    @discardableResult
    func cloudSucceeds(_ arguments: [String]) async throws -> String {
        let (status, output, errors) = await cloud(arguments)
        guard status == 0 else {
            throw TestPostgresError("nbgw-cloud \(arguments.joined(separator: " ")) exited \(status): \(errors)")
        }
        return output
    }

    /// A new gateway of `tenant` and its credentials (`gateways add --json`).
    func addGateway(_ name: String, tenant: String = "acme") async throws -> CloudCredentials {
        try await addCredential("gateways", name, tenant: tenant)
    }

    /// A new operator of `tenant` and its credentials (`operators add --json`): device management.
    func addOperator(_ name: String, tenant: String = "acme") async throws -> CloudCredentials {
        try await addCredential("operators", name, tenant: tenant)
    }

    private func addCredential(_ kind: String, _ name: String, tenant: String) async throws -> CloudCredentials {
        let output = try await cloudSucceeds([kind, "add", "--tenant", tenant, "--key-file", keyFile, "--json", name])
        struct Printed: Decodable {
            var client_id: String
            var secret: String
        }
        let printed = try JSONDecoder().decode(Printed.self, from: Data(output.utf8))
        return try CloudCredentials(clientID: printed.client_id, secret: printed.secret)
    }

    /// Starts one more node (on `port`, 0 for any); returns it once it listens.
    @discardableResult
    func startNode(_ arguments: [String] = ["--tenant-rate", "0"], port: Int = 0) async throws -> FleetNodeProcess {
        let (binary, keyFile, environment) = (self.binary, self.keyFile, self.environment)
        // Reading the node's first line blocks: on a thread of its own (TestPostgres.run says why).
        let node = try await TestPostgres.offPool {
            try FleetNodeProcess(
                binary: binary,
                arguments: ["serve", "--listen", "127.0.0.1:\(port)", "--key-file", keyFile] + arguments,
                environment: environment
            )
        }
        nodes.append(node)
        return node
    }

    /// One row of SQL through psql on this fixture's database.
    func sql(_ query: String) async throws -> String {
        let name = String(databaseURL[databaseURL.index(after: databaseURL.lastIndex(of: "/")!)...])
        return try await postgres.psql(query, database: name).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func count(_ query: String) async throws -> Int {
        let text = try await sql(query)
        guard let value = Int(text) else { throw TestPostgresError("\(query) gave \(text.debugDescription)") }
        return value
    }

    /// Asks `condition` every `interval` until it holds; returns how long that took, or throws
    /// naming `what` when `deadline` passes first.
    @discardableResult
    static func waitUntil(
        _ what: String,
        within deadline: Duration,
        every interval: Duration = .milliseconds(50),
        _ condition: () async throws -> Bool
    ) async throws -> Duration {
        let start = ContinuousClock.now
        while true {
            if try await condition() { return ContinuousClock.now - start }
            guard ContinuousClock.now - start < deadline else {
                throw TestPostgresError("\(what): not after \(deadline)")
            }
            try await Task.sleep(for: interval)
        }
    }
}

/// One `nbgw-cloud serve` process.
final class FleetNodeProcess: Sendable {
    let child: ChildProcess
    let port: Int
    private let errorLog = FleetNodeLog()

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// What the node logged so far (standard error, its last 256 KiB).
    var log: String { errorLog.text }

    /// Starts a node and reads its first line (blocks: call it off the cooperative pool).
    init(binary: String, arguments: [String], environment: [String: String]) throws {
        child = try ChildProcess(binary, arguments, environment: environment)
        // Its log goes to standard error: drained on a thread so that it never blocks the node.
        let (errors, errorLog) = (child.errors, errorLog)
        Thread.detachNewThread {
            while true {
                let data = errors.availableData
                if data.isEmpty { break }
                errorLog.append(data)
            }
        }
        // The node prints one line once it listens; anything else first is a failure to start.
        var line = Data()
        while true {
            let byte = child.output.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on "), let colon = text.lastIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...])
        else {
            child.signal(SIGKILL)
            let status = child.wait()
            throw TestPostgresError("nbgw-cloud serve did not start (exit \(status)): \(text)")
        }
        self.port = port
    }

    /// `GET /healthz` through curl: the HTTP status, 0 when no answer came within `timeout`.
    func healthz(timeout: Duration = .seconds(2)) async -> Int {
        let (_, output, _) = await TestPostgres.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "\(timeout.components.seconds)",
                baseURL + "/healthz",
            ]
        )
        return Int(output) ?? 0
    }

    /// Whether the process is stopped (SIGSTOP): its state in /proc is `T`.
    var isStopped: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(child.pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(close, offsetBy: 2)...].hasPrefix("T")
    }

    /// SIGTERM, then waits: the node's graceful stop; its exit status.
    func stop() async -> Int32 {
        child.signal(SIGTERM)
        let child = self.child
        return await TestPostgres.offPool { child.wait() }
    }

    /// SIGKILL: a node that dies mid-request.
    func kill() async {
        child.signal(SIGKILL)
        let child = self.child
        _ = await TestPostgres.offPool { child.wait() }
    }
}

/// A node's standard error as it came, its last 256 KiB.
final class FleetNodeLog: @unchecked Sendable {
    // Sendable: `data` only under `lock`.
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) {
        lock.lock()
        defer { lock.unlock() }
        data.append(more)
        if data.count > 256 * 1024 { data.removeFirst(data.count - 256 * 1024) }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
