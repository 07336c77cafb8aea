import CloudEmulatorKit
import Foundation
import NBGWCore
import Registry
import TestClocks
import TuyaCloud

/// An emulator on an ephemeral loopback port, a registry in a temporary directory, and an
/// ``HTTPCloud`` talking to the emulator over real HTTP (behind the gateway's binding and
/// registration paths, ``GatewayCloud``), all on one manual wall clock; retry sleeps go to a
/// manual clock (recorded, not waited).
final class CloudHarness: Sendable {
    /// Tuya's published example project (pairing-anchors §1.4).
    static let credentials = try! CloudCredentials(
        clientID: "1KAD46OrT9HafiKdsXeg",
        secret: "4OHBOnWOqaEC1mWXOpVL3yV50s0qGSRC"
    )

    let directory: URL
    let wallClock: ManualWallClock
    let sleeps: ManualClock
    let emulator: RunningCloudEmulator
    let registry: Registry
    let cloud: GatewayCloud

    private init(
        directory: URL,
        wallClock: ManualWallClock,
        sleeps: ManualClock,
        emulator: RunningCloudEmulator,
        registry: Registry,
        cloud: GatewayCloud
    ) {
        self.directory = directory
        self.wallClock = wallClock
        self.sleeps = sleeps
        self.emulator = emulator
        self.registry = registry
        self.cloud = cloud
    }

    /// Runs `body` with a fresh harness and tears it down afterwards.
    static func with<T>(
        faults: EmulatorFaults = EmulatorFaults(),
        emulatorSetup: (inout EmulatorConfiguration) -> Void = { _ in },
        cloudSetup: (inout CloudConfiguration) -> Void = { _ in },
        _ body: (CloudHarness) async throws -> T
    ) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-cloud-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let wallClock = ManualWallClock(Date())
        var emulatorConfiguration = EmulatorConfiguration(
            databasePath: directory.appendingPathComponent("emulator.sqlite").path,
            credentials: credentials,
            faults: faults,
            wallClock: wallClock
        )
        emulatorSetup(&emulatorConfiguration)
        let emulator = try await CloudEmulator(configuration: emulatorConfiguration).start()
        let registry = try Registry(path: directory.appendingPathComponent("store.sqlite").path, clock: wallClock)
        var configuration = try CloudConfiguration(
            baseURL: emulator.baseURL,
            credentials: credentials,
            connectTimeout: .seconds(2),
            requestTimeout: .seconds(5)
        )
        cloudSetup(&configuration)
        let sleeps = ManualClock()
        let harness = CloudHarness(
            directory: directory,
            wallClock: wallClock,
            sleeps: sleeps,
            emulator: emulator,
            registry: registry,
            cloud: HTTPCloud.make(configuration, registry, sleeps, wallClock)
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

    /// Another cloud client on the same store and emulator (a restarted process, other credentials).
    func makeCloud(
        registry: Registry? = nil,
        credentials: CloudCredentials = CloudHarness.credentials,
        setup: (inout CloudConfiguration) -> Void = { _ in }
    ) throws -> GatewayCloud {
        var configuration = try CloudConfiguration(
            baseURL: emulator.baseURL,
            credentials: credentials,
            connectTimeout: .seconds(2),
            requestTimeout: .seconds(5)
        )
        setup(&configuration)
        return HTTPCloud.make(configuration, registry ?? self.registry, sleeps, wallClock)
    }

    /// Opens the same store file again, as a restarted process would.
    func reopenRegistry() throws -> Registry {
        try Registry(path: directory.appendingPathComponent("store.sqlite").path, clock: wallClock)
    }

    private func tearDown() async {
        await cloud.shutdown()
        await emulator.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Owner alice with home lab, owner bob with home attic.
    func seedAccounts() throws {
        try registry.directory.addAccount(name: "alice", role: .owner)
        try registry.directory.addHome(name: "lab", owner: "alice")
        try registry.directory.addAccount(name: "bob", role: .owner)
        try registry.directory.addHome(name: "attic", owner: "bob")
    }
}

extension HTTPCloud {
    /// The gateway's cloud side over `registry` and an HTTP cloud with the harness's clocks.
    static func make(
        _ configuration: CloudConfiguration,
        _ registry: Registry,
        _ sleeps: ManualClock,
        _ wallClock: ManualWallClock,
        transport: (any CloudHTTPTransport)? = nil
    ) -> GatewayCloud {
        GatewayCloud(
            http: HTTPCloud(
                configuration: configuration,
                transport: transport
                    ?? AsyncHTTPClientTransport(connectTimeout: configuration.connectTimeout),
                clock: sleeps,
                wallClock: wallClock,
                jitter: { 0.5 }
            ),
            registry: registry
        )
    }
}

/// Runs `body` and returns the code of the `NBGWError` it threw (nil when it did not throw).
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

/// Valid test identities (Luhn-correct IMEIs).
enum Modules {
    static let imeiA = "490154203237518"
    static let imeiB = "356938035643809"
    static let imeiC = "352099001761481"
}
