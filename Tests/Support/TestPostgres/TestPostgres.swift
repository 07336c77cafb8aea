import Foundation

/// A private PostgreSQL 15 cluster for the tests of one process, started once by
/// `tools/pg-cluster.sh` in a temporary directory (as an unprivileged user: no root service, no
/// Docker) and removed when the process exits. Each test takes a database of its own
/// (``makeDatabase()``), so suites run in parallel without seeing each other's rows. A test that
/// stops or crashes the server takes a cluster of its own (``privateCluster(durable:)``).
public final class TestPostgres: Sendable {
    /// `postgresql://nbgw@127.0.0.1:PORT/nbgw`, without the password.
    public let url: String
    /// The superuser's password (also in `directory/password`).
    public let password: String
    /// The cluster's directory.
    public let directory: String
    /// The repository's root (for `tools/…` and `.build/debug/…`).
    public let root: URL

    /// The process's cluster, started on first use (on a thread of its own: see ``run(_:_:environment:)``).
    private static let shared = Task<TestPostgres, any Error> {
        try await TestPostgres.offPool { try TestPostgres.start() }
    }

    /// The process's cluster, or the reason it could not start.
    public static func cluster() async throws -> TestPostgres { try await shared.value }

    private init(url: String, password: String, directory: String, root: URL) {
        self.url = url
        self.password = password
        self.directory = directory
        self.root = root
    }

    /// A cluster of its own, for one test that stops, crashes or restarts PostgreSQL, or holds
    /// transactions open for long: the process's cluster (``cluster()``) is shared by every test
    /// of the process, running in parallel, which such a test would break (an open write
    /// transaction also holds back every database's event stream: xids are cluster-wide). In a
    /// new directory, on a port of its own kept across ``stop(immediate:)`` and ``restart()``.
    /// Remove it with ``remove()`` when the test ends (else when the process exits).
    ///
    /// - Parameter durable: fsync and synchronous_commit on, so that a commit PostgreSQL
    ///   acknowledged survives a crash of the server (`stop(immediate: true)`); else `--fast`
    ///   (an acknowledged commit may be lost in a crash: `synchronous_commit = off`).
    public static func privateCluster(durable: Bool = false) async throws -> TestPostgres {
        try await TestPostgres.offPool { try TestPostgres.start(fast: !durable) }
    }

    /// Stops the server and deletes its directory (a cluster from ``privateCluster(durable:)``).
    public func remove() async {
        let script = root.appendingPathComponent("tools/pg-cluster.sh").path
        _ = await TestPostgres.run(script, ["remove", directory])
        TestPostgresCleanup.forget(directory)
    }

    private static func start(fast: Bool = true) throws(TestPostgresError) -> TestPostgres {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        // Short: the server's Unix socket lives inside and socket paths are limited to 107 bytes.
        let directory = "/tmp/nbgw-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let script = root.appendingPathComponent("tools/pg-cluster.sh").path
        let (status, output, errors) = runBlocking(script, ["start", directory] + (fast ? ["--fast"] : []))
        // Registered even when the start failed: pg-cluster.sh may have left a directory behind.
        TestPostgresCleanup.register(script: script, directory: directory)
        guard status == 0 else {
            throw TestPostgresError("tools/pg-cluster.sh start failed (\(status)): \(errors)\(output)")
        }
        let url = output.split(separator: "\n").last.map(String.init) ?? ""
        guard let password = try? String(contentsOfFile: directory + "/password", encoding: .utf8) else {
            throw TestPostgresError("the cluster in \(directory) has no password file")
        }
        return TestPostgres(
            url: url,
            password: password.trimmingCharacters(in: .whitespacesAndNewlines),
            directory: directory,
            root: root
        )
    }

    /// A new, empty database of the cluster; returns its URL (same host, user and password).
    public func makeDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await psql("CREATE DATABASE \(name)")
        guard let cut = url.lastIndex(of: "/") else { throw TestPostgresError("odd URL \(url)") }
        return url[..<cut] + "/" + name
    }

    /// Runs one SQL command through `psql` as the superuser (password through the environment).
    @discardableResult
    public func psql(_ sql: String, database: String = "nbgw") async throws -> String {
        let (status, output, errors) = await TestPostgres.run(
            root.appendingPathComponent("tools/pg-cluster.sh").path,
            ["psql", directory, "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql]
        )
        guard status == 0 else { throw TestPostgresError("psql \(sql.debugDescription) failed: \(errors)") }
        return output
    }

    /// Stops the server: `immediate` as a crash (no checkpoint), else a fast shutdown.
    public func stop(immediate: Bool) async throws {
        let (status, _, errors) = await TestPostgres.run(
            root.appendingPathComponent("tools/pg-cluster.sh").path,
            ["stop", directory] + (immediate ? ["--immediate"] : [])
        )
        guard status == 0 else { throw TestPostgresError("stopping the cluster failed: \(errors)") }
    }

    /// Starts the server again on the same port after ``stop(immediate:)``.
    public func restart() async throws {
        let (status, _, errors) = await TestPostgres.run(
            root.appendingPathComponent("tools/pg-cluster.sh").path,
            ["restart", directory]
        )
        guard status == 0 else { throw TestPostgresError("restarting the cluster failed: \(errors)") }
    }

    /// Runs a program to completion on a thread of its own; returns its status, standard output and
    /// standard error.
    ///
    /// Why a thread of its own: waiting for a child blocks its thread, and on a 2-core machine the
    /// cooperative pool is two threads; two tests waiting there would stall every other test.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil) async
        -> (Int32, String, String)
    {
        await offPool { runBlocking(path, arguments, environment: environment) }
    }

    /// Runs `body` on a new thread and returns its result.
    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    public static func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    /// ``run(_:_:environment:)`` on the caller's thread (never a cooperative one).
    static func runBlocking(_ path: String, _ arguments: [String], environment: [String: String]? = nil)
        -> (Int32, String, String)
    {
        let child: ChildProcess
        do {
            child = try ChildProcess(path, arguments, environment: environment)
        } catch {
            return (127, "", "\(error)")
        }
        // Both pipes drained before waiting, standard error on a thread of its own: a child that
        // fills either pipe would otherwise never exit.
        let errorText = TestPostgresReader(child.errors)
        let outputData = (try? child.output.readToEnd()) ?? nil
        let status = child.wait()
        return (status, String(decoding: outputData ?? Data(), as: UTF8.self), errorText.wait())
    }
}

/// Why the cluster could not be used.
public struct TestPostgresError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Removes the clusters still there when the test process exits (a server is a process of its
/// own and would outlive it): the process's cluster, and any private one a test did not remove.
enum TestPostgresCleanup {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var script = ""
    nonisolated(unsafe) private static var directories: [String] = []

    static func register(script: String, directory: String) {
        lock.lock()
        defer { lock.unlock() }
        if Self.script.isEmpty {
            atexit {
                for directory in TestPostgresCleanup.remaining() {
                    _ = TestPostgres.runBlocking(TestPostgresCleanup.script, ["remove", directory])
                }
            }
        }
        Self.script = script
        directories.append(directory)
    }

    static func forget(_ directory: String) {
        lock.lock()
        defer { lock.unlock() }
        directories.removeAll { $0 == directory }
    }

    private static func remaining() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return directories
    }
}

/// Reads a pipe to its end on a thread of its own.
final class TestPostgresReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = (try? handle.readToEnd()) ?? nil ?? Data()
            done.signal()
        }
    }

    func wait() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
