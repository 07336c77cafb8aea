import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import Provisioning
import Registry
import Synchronization
import TuyaCloud

/// A gateway as `nbgwd` runs one against a cloud: its own SQLite store, its own credentials,
/// the production HTTP adapter, registrar, binding service and outbox drainer.
final class FleetGateway: Sendable {
    let name: String
    let registry: Registry
    let http: HTTPCloud
    let registrar: DeviceRegistrar
    let bindings: BindingService
    let credentials: CloudCredentials
    let retries: RetryPolicy?
    /// Adapters for other nodes (``adapter(at:)``), shut down with this gateway.
    private let adapters = Mutex<[HTTPCloud]>([])

    init(
        name: String,
        credentials: CloudCredentials,
        baseURL: String,
        directory: URL,
        retries: RetryPolicy? = nil
    ) throws {
        self.name = name
        self.credentials = credentials
        self.retries = retries
        registry = try Registry(path: directory.appendingPathComponent("\(name).sqlite").path)
        http = try FleetGateway.adapter(baseURL: baseURL, credentials: credentials, retries: retries)
        registrar = DeviceRegistrar(cloud: http, registry: registry)
        bindings = BindingService(cloud: http, registry: registry, cloudWait: .seconds(30))
    }

    /// This gateway's HTTP adapter (its credentials and retries) for another node: what a
    /// gateway behind a load balancer reaches when its first node stops answering.
    func adapter(at baseURL: String) throws -> HTTPCloud {
        let adapter = try FleetGateway.adapter(baseURL: baseURL, credentials: credentials, retries: retries)
        adapters.withLock { $0.append(adapter) }
        return adapter
    }

    private static func adapter(
        baseURL: String,
        credentials: CloudCredentials,
        retries: RetryPolicy?
    ) throws -> HTTPCloud {
        var configuration = try CloudConfiguration(
            baseURL: baseURL,
            credentials: credentials,
            connectTimeout: .seconds(5),
            requestTimeout: .seconds(20)
        )
        if let retries { configuration.retryPolicy = retries }
        return HTTPCloud(
            configuration: configuration,
            transport: AsyncHTTPClientTransport(connectTimeout: configuration.connectTimeout)
        )
    }

    /// An owner account with one home, both named after `account`.
    func addAccount(_ account: String) throws {
        _ = try registry.directory.addAccount(name: account, role: .owner)
        _ = try registry.directory.addHome(name: account + "-home", owner: account)
    }

    /// Binds locally and queues the cloud's bind without sending it (the outbox sends it later).
    func bindQueued(_ deviceID: String, account: String) throws -> Int64? {
        let command = BindCommand(deviceID: try DeviceID(deviceID), account: account, home: account + "-home", source: .cli)
        return try registry.bindings.bind(command, timeout: .seconds(120), queueForCloud: true).outboxEntry?.id
    }

    func drain() async -> OutboxDrainReport {
        await OutboxDrainer(registry: registry, cloud: http, owner: name).drain()
    }

    /// A sender whose rows are retried 50 ms to 1 s apart (a gateway's own backoff starts at
    /// 30 s) and leased for `lease`, through `cloud` (this gateway's adapter by default), as lease
    /// owner `owner` (the gateway's name by default; another sender of the same store needs its own).
    func fastSender(
        via cloud: HTTPCloud? = nil,
        owner: String? = nil,
        lease: Duration = .seconds(2)
    ) -> OutboxSender {
        OutboxSender(
            registry: registry,
            cloud: cloud ?? http,
            owner: owner ?? name,
            lease: lease,
            backoff: RetryPolicy(maxAttempts: .max, initialDelay: .milliseconds(50), maximumDelay: .seconds(1))
        )
    }

    /// Drains until no row is pending or in flight, with ``fastSender(via:owner:lease:)``; false
    /// when `deadline` passes first.
    func drainUntilSettled(
        within deadline: Duration,
        via cloud: HTTPCloud? = nil,
        owner: String? = nil,
        lease: Duration = .seconds(2)
    ) async throws -> Bool {
        let sender = fastSender(via: cloud, owner: owner, lease: lease)
        let end = ContinuousClock.now.advanced(by: deadline)
        while ContinuousClock.now < end {
            _ = await OutboxDrainer(sender: sender).drain()
            let counts = try registry.outbox.counts()
            if counts[.pending, default: 0] == 0 && counts[.inflight, default: 0] == 0 { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    func shutdown() async {
        await http.shutdown()
        for adapter in adapters.withLock({ $0 }) { await adapter.shutdown() }
    }
}

/// Luhn-valid IMEIs from a 14-digit base.
enum FleetIMEIs {
    static func make(_ count: Int, base: Int = 35_693_803_000_000) -> [String] {
        (0..<count).map { index in
            let body = String(base + index)
            return body + String(luhn(body))
        }
    }

    static func luhn(_ body: String) -> Int {
        var sum = 0
        for (offset, character) in body.reversed().enumerated() {
            var digit = Int(String(character))!
            if offset % 2 == 0 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return (10 - sum % 10) % 10
    }
}
