import Cloud
import DeviceIdentity
import NBGWCore
import Pairing
import Provisioning
import Registry
import TuyaCloud

/// The gateway's cloud side as the commands use it, over one store and one ``HTTPCloud``: binds
/// and unbinds through ``BindingService`` (local first, then the cloud), registrations through
/// ``DeviceRegistrar``, labels through the store then the cloud. Every call is the production
/// path; this type only keeps the tests' vocabulary short (`h.cloud.bind(…)`).
final class GatewayCloud: Sendable {
    let http: HTTPCloud
    let registry: Registry
    let bindings: BindingService
    let registrar: DeviceRegistrar

    /// Why a 30 s cloud wait: the emulator answers on loopback in milliseconds, and these tests
    /// assert what the cloud answered, not how long a bench waits (BindingServiceCloudWaitTests do).
    init(http: HTTPCloud, registry: Registry, cloudWait: Duration = .seconds(30)) {
        self.http = http
        self.registry = registry
        self.bindings = BindingService(cloud: http, registry: registry, cloudWait: cloudWait)
        self.registrar = DeviceRegistrar(cloud: http, registry: registry)
    }

    var configuration: CloudConfiguration { http.configuration }

    func shutdown() async { await http.shutdown() }

    func register(_ identity: ModuleIdentity) async throws(NBGWError) -> CloudRegistration {
        try await registrar.register(identity)
    }

    /// A local bind and where the cloud stands (``CloudSyncStatus/State/notNeeded`` when nothing
    /// was queued).
    struct BindResult: Sendable, Equatable {
        var outcome: BindOutcome
        var sync: CloudSyncStatus
    }

    struct UnbindResult: Sendable, Equatable {
        var binding: BindingRecord
        var sync: CloudSyncStatus
    }

    /// Binds through ``BindingService``; with `syncNow: false` the bind and its outbox row only
    /// commit (a process that dies before sending).
    func bind(
        _ command: BindCommand,
        timeout: Duration = BindingRules.defaultActivationTimeout,
        syncNow: Bool = true
    ) async throws(NBGWError) -> BindResult {
        guard syncNow else {
            let synced = try registry.bindings.bind(command, timeout: timeout, queueForCloud: true)
            return BindResult(outcome: synced.change, sync: Self.queued(synced.outboxEntry))
        }
        let result = try await bindings.bind(
            .nbBind(NBBindPayload(deviceID: command.deviceID, origin: .json)),
            account: command.account,
            home: command.home,
            token: command.token,
            source: command.source,
            operator: command.operator,
            timeout: timeout
        )
        return BindResult(outcome: result.outcome, sync: result.sync ?? CloudSyncStatus(state: .notNeeded))
    }

    func unbind(
        deviceID: String,
        source: BindingSource,
        operator: String? = nil,
        syncNow: Bool = true
    ) async throws(NBGWError) -> UnbindResult {
        guard syncNow else {
            let synced = try registry.bindings.unbind(
                deviceID: deviceID,
                source: source,
                operator: `operator`,
                queueForCloud: true
            )
            return UnbindResult(binding: synced.change, sync: Self.queued(synced.outboxEntry))
        }
        let result = try await bindings.unbind(deviceID: deviceID, source: source, operator: `operator`)
        return UnbindResult(binding: result.binding, sync: result.sync ?? CloudSyncStatus(state: .notNeeded))
    }

    func resolve(_ payload: QRPayload) async throws(NBGWError) -> QRPayload {
        try await bindings.resolve(payload, budget: BindingRules.defaultActivationTimeout)
    }

    func drainer(owner: String? = nil) -> OutboxDrainer {
        OutboxDrainer(registry: registry, cloud: http, owner: owner)
    }

    private static func queued(_ entry: Registry.OutboxEntry?) -> CloudSyncStatus {
        guard let entry else { return CloudSyncStatus(state: .notNeeded) }
        return CloudSyncStatus(state: .queued, outboxID: entry.id, message: "queued for the cloud")
    }

    // The cloud's own calls, for the end-to-end flows.

    func parseQR(_ code: String) async throws(NBGWError) -> CloudAPI.QRParseResult { try await http.parseQR(code) }

    func createPairingToken(home: String, account: String) async throws(NBGWError) -> CloudPairingToken {
        try await http.createPairingToken(home: home, account: account, key: IdempotencyKey.make())
    }

    func bindInCloud(
        deviceID: String,
        account: String,
        home: String,
        token: String
    ) async throws(NBGWError)
        -> CloudAPI.BindResult
    {
        try await http.bindInCloud(
            deviceID: deviceID,
            account: account,
            home: home,
            token: token,
            key: IdempotencyKey.make()
        )
    }

    func unbindInCloud(deviceID: String) async throws(NBGWError) -> CloudAPI.UnbindResult {
        try await http.unbindInCloud(deviceID: deviceID, key: IdempotencyKey.make())
    }

    func pairingResult(token: String) async throws(NBGWError) -> CloudAPI.PairingResult {
        try await http.pairingResult(token: token)
    }

    func cloudModules() async throws(NBGWError) -> [CloudAPI.Module] { try await http.cloudModules() }

    func cloudBindings() async throws(NBGWError) -> [CloudAPI.Binding] { try await http.cloudBindings() }
}

extension OutboxDrainer {
    /// A drainer of `cloud`'s store through its HTTP cloud.
    init(cloud: GatewayCloud, owner: String? = nil) {
        self.init(registry: cloud.registry, cloud: cloud.http, owner: owner)
    }
}
