import Cloud
import Foundation
import GRDB
import KiiCloud
import KiiEmulatorKit
import NBGWCore
import Provisioning
import Registry
import TestClocks

/// A Kii emulator on an ephemeral loopback port, a registry in a temporary directory, and a
/// ``KiiCloud`` talking to the emulator over real HTTP, behind Provisioning's real services
/// (``BindingService``, ``DeviceRegistrar``, ``OutboxDrainer``); the store on a manual wall clock,
/// retry sleeps on an instant clock (recorded, not waited).
final class KiiHarness: Sendable {
    static let appID = "nbgwtest"
    static let ownerUserID = "5ae0-gateway-owner-0001"
    static let ownerToken = "owner-token-kJ8q2Zr7Yw3nLpV0"

    let directory: URL
    let wallClock: ManualWallClock
    let sleeps: InstantClock
    let emulator: RunningKiiEmulator
    /// The daemon's secrets key: the harness's registry holds it, as nbgwd does.
    let secretsKey: StoreSecretsKey
    let registry: Registry
    let cloud: KiiCloud
    let bindings: BindingService
    let registrar: DeviceRegistrar

    private init(
        directory: URL,
        wallClock: ManualWallClock,
        sleeps: InstantClock,
        emulator: RunningKiiEmulator,
        secretsKey: StoreSecretsKey,
        registry: Registry,
        cloud: KiiCloud,
        cloudWait: Duration
    ) {
        self.directory = directory
        self.wallClock = wallClock
        self.sleeps = sleeps
        self.emulator = emulator
        self.secretsKey = secretsKey
        self.registry = registry
        self.cloud = cloud
        self.bindings = BindingService(cloud: cloud, registry: registry, cloudWait: cloudWait)
        self.registrar = DeviceRegistrar(cloud: cloud, registry: registry)
    }

    /// Runs `body` with a fresh harness and tears it down afterwards.
    ///
    /// - Parameter cloudWait: why 30 s by default: the emulator answers on loopback in
    ///   milliseconds, and most tests assert what Kii did, not how long a bench waits.
    static func with<T>(
        faults: KiiEmulatorFaults = KiiEmulatorFaults(),
        cloudWait: Duration = .seconds(30),
        requireThingPassword: Bool = false,
        _ body: (KiiHarness) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-kii-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let wallClock = ManualWallClock(Date())
        let emulator = try await KiiEmulator(
            configuration: KiiEmulatorConfiguration(
                databasePath: directory.appendingPathComponent("kii.sqlite").path,
                appID: appID,
                ownerUserID: ownerUserID,
                ownerToken: ownerToken,
                users: ["alice", "bob"],
                faults: faults,
                requireThingPassword: requireThingPassword
            )
        ).start()
        let secretsKey = StoreSecretsKey.generate()
        let registry = try Registry(
            path: directory.appendingPathComponent("store.sqlite").path,
            clock: wallClock,
            secretsKey: .key(secretsKey)
        )
        let sleeps = InstantClock()
        let harness = KiiHarness(
            directory: directory,
            wallClock: wallClock,
            sleeps: sleeps,
            emulator: emulator,
            secretsKey: secretsKey,
            registry: registry,
            cloud: try makeCloud(emulator, sleeps: sleeps),
            cloudWait: cloudWait
        )
        do {
            let result = try await body(harness)
            await harness.tearDown()
            return result
        } catch {
            await harness.tearDown()
            throw error
        }
    }

    /// A Kii cloud on the emulator, configured as an operator would: the URL and the environment.
    static func makeCloud(
        _ emulator: RunningKiiEmulator,
        sleeps: InstantClock,
        environment extra: [String: String] = [:]
    ) throws -> KiiCloud {
        var environment = [
            "NBGW_KII_OWNER": "USER:\(ownerUserID)",
            "NBGW_KII_OWNER_TOKEN": ownerToken,
            "NBGW_KII_CONNECT_TIMEOUT": "2",
            "NBGW_KII_REQUEST_TIMEOUT": "5",
        ]
        for (key, value) in extra { environment[key] = value }
        let configuration = try KiiConfiguration.resolve(url: emulator.cloudSpec, environment: environment)
        return KiiCloud(configuration: configuration, clock: sleeps, jitter: { 0.5 })
    }

    /// Another Kii cloud on the same emulator (other settings: a wrong token, another gateway).
    func makeCloud(environment: [String: String] = [:]) throws -> KiiCloud {
        try KiiHarness.makeCloud(emulator, sleeps: sleeps, environment: environment)
    }

    func drainer(cloud: KiiCloud? = nil) -> OutboxDrainer {
        OutboxDrainer(registry: registry, cloud: cloud ?? self.cloud)
    }

    private func tearDown() async {
        await cloud.shutdown()
        await emulator.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The same store as another process without the secrets key sees it (an operator's `nbgw`).
    func keylessRegistry() throws -> Registry {
        try Registry(
            path: registry.path,
            clock: wallClock,
            secretsKey: .unavailable("user alice may not read /etc/nbgw/credentials/secrets.key (root only)")
        )
    }

    /// The store's bytes on disk (the database file and its log).
    func storeBytes() throws -> Data {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: registry.path))
        if let log = try? Data(contentsOf: URL(fileURLWithPath: registry.path + "-wal")) { bytes.append(log) }
        return bytes
    }

    /// The access token the emulator issued to the thing onboarded for `imei`.
    func thingToken(imei: String) throws -> String? {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("kii.sqlite").path)
        return try queue.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT t.token FROM token t JOIN thing h ON h.id = t.subject
                    WHERE t.kind = 'thing' AND h.vendor_thing_id = ?
                    """,
                arguments: [imei]
            )
        }
    }

    /// Binds a registered module by its label, as an operator scanning it would (`nbgw bind`).
    func bindLabel(
        _ registration: CloudRegistration,
        account: String = "alice",
        home: String = "lab"
    ) async throws -> CloudBindOutcome {
        try await bindings.bind(qr: registration.labelPayload, account: account, home: home, source: .cli)
    }

    /// Owner alice with home lab, owner bob with home attic, owner carol (no Kii user) with home den.
    func seedAccounts() throws {
        try registry.directory.addAccount(name: "alice", role: .owner)
        try registry.directory.addHome(name: "lab", owner: "alice")
        try registry.directory.addAccount(name: "bob", role: .owner)
        try registry.directory.addHome(name: "attic", owner: "bob")
        try registry.directory.addAccount(name: "carol", role: .owner)
        try registry.directory.addHome(name: "den", owner: "carol")
    }

    /// The login names owning the thing onboarded for `imei`, in the emulator.
    func owners(imei: String) throws -> [String] {
        guard let thing = try emulator.store.thing(vendorThingID: imei) else { return [] }
        return try emulator.store.ownerLoginNames(thingID: thing.id)
    }
}

/// Valid test identities (Luhn-correct IMEIs).
enum Modules {
    static let imeiA = "490154203237518"
    static let imeiB = "356938035643809"
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
