import Cloud
import DeviceIdentity
import Foundation
import Hummingbird
import HummingbirdTesting
import Ingest
import Logging
import Provisioning
import Registry
import ServiceLifecycle

/// A real SQLite store in a temp directory with accounts, homes, registered devices and an API
/// key, and a way to run the real ingest server on loopback against it.
final class IngestFixture: Sendable {
    let directory: URL
    let registry: Registry
    let cloud: EmbeddedCloud
    /// Device ids and label payloads of the registered devices, in registration order.
    let ids: [String]
    let labels: [String]
    let key: String
    let keyName = "scanner-1"

    /// owner alice (home lab), owner bob (home bobs), guest gus, owner carol (home locked, allow-list p-other).
    init(devices count: Int = 8, owners extraOwners: Int = 0) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        registry = try Registry(path: directory.appendingPathComponent("store.sqlite").path)
        cloud = EmbeddedCloud()
        try registry.directory.addAccount(name: "alice", role: .owner)
        try registry.directory.addAccount(name: "bob", role: .owner)
        try registry.directory.addAccount(name: "gus", role: .guest)
        try registry.directory.addAccount(name: "carol", role: .owner)
        try registry.directory.addHome(name: "lab", owner: "alice")
        try registry.directory.addHome(name: "bobs", owner: "bob")
        try registry.directory.addHome(name: "locked", owner: "carol", allowedProducts: ["p-other"])
        for index in 0..<extraOwners {
            try registry.directory.addAccount(name: "owner\(index)", role: .owner)
            try registry.directory.addHome(name: "home\(index)", owner: "owner\(index)")
        }
        var ids: [String] = []
        var labels: [String] = []
        for serial in 0..<count {
            let body = String(format: "35693803%06d", serial)
            let registration = try await DeviceRegistrar(cloud: cloud, registry: registry).register(
                imei: body + String(Luhn.checkDigit(for: body)),
                manufacturer: "Quectel",
                model: "BC66"
            )
            ids.append(registration.device.deviceID)
            labels.append(registration.labelPayload)
        }
        self.ids = ids
        self.labels = labels
        key = try IngestAPIKeys.create(name: keyName, registry: registry).key
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var path: String { directory.appendingPathComponent("store.sqlite").path }

    /// The NB bind JSON for a device id.
    static func bindJSON(_ id: String) -> String {
        #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"\#(id)"}}"#
    }

    func configuration(
        rateLimit: IngestConfiguration.RateLimit? = nil,
        bindTimeout: Duration = .seconds(10),
        clock: @escaping @Sendable () -> Duration = IngestConfiguration.uptime
    ) -> IngestConfiguration {
        IngestConfiguration(
            host: "127.0.0.1",
            port: 0,
            rateLimit: rateLimit,
            bindTimeout: bindTimeout,
            rateLimitClock: clock
        )
    }

    /// Runs `body` against the real server listening on a free loopback port.
    func withServer<T: Sendable>(
        _ configuration: IngestConfiguration? = nil,
        _ body: @Sendable (any TestClientProtocol) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "ingest-tests")
        logger.logLevel = .warning
        let app = try IngestService.buildApplication(
            configuration: configuration ?? self.configuration(),
            registry: registry,
            cloud: cloud,
            logger: logger
        )
        return try await app.test(.live) { client in try await body(client) }
    }

    /// Runs `body` with the port of the real application, started as `nbgwd` starts it (not through
    /// HummingbirdTesting, whose live mode rebuilds the application's configuration without its
    /// connection cap, as of Hummingbird 2.28.1).
    func withRunningApplication<T: Sendable>(
        _ configuration: IngestConfiguration,
        _ body: @Sendable (Int) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "ingest-tests")
        logger.logLevel = .warning
        let (ports, sink) = AsyncStream.makeStream(of: Int.self)
        let app = try IngestService.buildApplication(
            configuration: configuration,
            registry: registry,
            cloud: cloud,
            logger: logger
        ) { _, port in sink.yield(port) }
        // Stopped gracefully, as the daemon stops it, never by cancelling the serving task: a
        // cancelled server drops connections it accepted but had not served yet, and NIO traps on
        // their unfinished writers (swift-nio#2813; it took a CI run's test process down).
        let services = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger)
        )
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await services.run()
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            do {
                let value = try await body(port)
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return value
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
        }
    }

    func headers(key: String? = nil) -> HTTPFields {
        [.authorization: "Bearer \(key ?? self.key)", .contentType: "application/json"]
    }
}

/// A decoded response: status and JSON object.
struct Reply: Sendable {
    let status: Int
    let body: String
    let headers: HTTPFields

    init(_ response: TestResponse) {
        status = response.status.code
        body = String(buffer: response.body)
        headers = response.headers
    }

    init(_ response: TestClient.Response) {
        status = response.head.status.code
        body = response.body.map { String(buffer: $0) } ?? ""
        headers = response.head.headerFields
    }

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
    }

    /// The error body's code, or nil.
    var code: String? { (json["error"] as? [String: Any])?["code"] as? String }
    var message: String? { (json["error"] as? [String: Any])?["message"] as? String }
}

extension TestClientProtocol {
    func call(
        _ method: HTTPRequest.Method,
        _ uri: String,
        headers: HTTPFields,
        body: String? = nil
    ) async throws -> Reply {
        Reply(
            try await execute(
                uri: uri,
                method: method,
                headers: headers,
                body: body.map { ByteBuffer(string: $0) }
            )
        )
    }
}

/// Encodes a JSON object body.
func jsonBody(_ object: [String: String]) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}
