import Cloud
import CloudEmulatorKit
import DeviceIdentity
import Foundation
import NBGWCore
import Provisioning
import Registry
import Testing
import TuyaCloud

@Suite("Outbox: local first, then the cloud, exactly once")
struct OutboxExactlyOnceTests {
    static func bindAlice(_ deviceID: String) throws -> BindCommand {
        BindCommand(deviceID: try DeviceID(deviceID), account: "alice", home: "lab", source: .cli)
    }

    @Test("A crash after the local commit and before the cloud call: sent once after restart")
    func crashBeforeCloudCall() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let deviceID = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))).device.deviceID
            // The bind commits with its outbox row; the process dies before sending anything.
            let local = try await h.cloud.bind(try Self.bindAlice(deviceID), syncNow: false)
            #expect(local.sync.state == .queued)
            #expect(try h.emulator.stats().effects("bind") == 0)

            // Restart: a new store handle and a new cloud client on the same file.
            let registry = try h.reopenRegistry()
            let cloud = try h.makeCloud(registry: registry)
            let report = await OutboxDrainer(cloud: cloud).drain()
            #expect(report.sent == 1 && report.isComplete)
            let again = await OutboxDrainer(cloud: cloud).drain()
            #expect(again.sent == 0)
            await cloud.shutdown()

            let stats = try h.emulator.stats()
            #expect(stats.effects("bind") == 1)
            #expect(try h.emulator.store.effects(subject: deviceID).map(\.operation) == ["register", "bind"])
            #expect(try registry.outbox.entry(id: local.sync.outboxID!)?.state == .done)
        }
    }

    @Test("A crash after the cloud acted and before the row was marked done: resent once, replayed, one effect")
    func crashAfterCloudCall() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let deviceID = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))).device.deviceID
            let local = try await h.cloud.bind(try Self.bindAlice(deviceID), syncNow: false)
            let outboxID = try #require(local.sync.outboxID)

            // First process: its drainer sends the bind, the cloud binds, and the process dies
            // before it can record that.
            let crashing = CrashingTransport(AsyncHTTPClientTransport(connectTimeout: .seconds(2))) {
                $0.url.hasSuffix(CloudAPI.bindPath)
            }
            let doomed = HTTPCloud.make(h.cloud.configuration, h.registry, h.sleeps, h.wallClock, transport: crashing)
            let firstRun = Task { await OutboxDrainer(cloud: doomed, owner: "first-process").drain() }
            await crashing.waitForCrash()
            #expect(try h.emulator.stats().effects("bind") == 1)
            #expect(try h.registry.outbox.entry(id: outboxID)?.state == .inflight)

            // Restart: the row is leased to the dead process until its lease runs out.
            let registry = try h.reopenRegistry()
            let cloud = try h.makeCloud(registry: registry)
            let early = await OutboxDrainer(cloud: cloud, owner: "second-process").drain()
            #expect(early.sent == 0)
            h.wallClock.advance(by: 301)
            let report = await OutboxDrainer(cloud: cloud, owner: "second-process").drain()
            #expect(report.sent == 1 && report.isComplete)
            let entry = try #require(try registry.outbox.entry(id: outboxID))
            #expect(entry.state == .done && entry.attempts == 2)

            // The zombie wakes up: it cannot settle a row that is no longer its own.
            crashing.releaseZombie()
            let zombie = await firstRun.value
            #expect(zombie.sent == 0)
            #expect(try registry.outbox.entry(id: outboxID)?.state == .done)
            await doomed.shutdown()
            await cloud.shutdown()

            let stats = try h.emulator.stats()
            #expect(stats.effects("bind") == 1)
            #expect(stats.effects("pairing_token") == 1)
            #expect(stats.replays >= 2)
            #expect(try await h.cloud.cloudBindings().map(\.deviceID) == [deviceID])
        }
    }

    @Test("A registration whose answer was lost is completed after restart under the same device id")
    func registrationCrash() async throws {
        try await CloudHarness.with { h async throws in
            let crashing = CrashingTransport(AsyncHTTPClientTransport(connectTimeout: .seconds(2))) {
                $0.url.hasSuffix(CloudAPI.modulesPath)
            }
            let doomed = HTTPCloud.make(h.cloud.configuration, h.registry, h.sleeps, h.wallClock, transport: crashing)
            let firstRun = Task { try? await doomed.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))) }
            await crashing.waitForCrash()
            #expect(try h.registry.directory.device(imei: Modules.imeiA) == nil)

            h.wallClock.advance(by: 301)
            let registry = try h.reopenRegistry()
            let cloud = try h.makeCloud(registry: registry)
            let report = await OutboxDrainer(cloud: cloud).drain()
            #expect(report.sent == 1)
            let device = try #require(try registry.directory.device(imei: Modules.imeiA))
            #expect(try h.emulator.stats().effects("register") == 1)
            #expect(try await cloud.cloudModules().map(\.deviceID) == [device.deviceID])
            crashing.releaseZombie()
            _ = await firstRun.value
            await doomed.shutdown()
            await cloud.shutdown()
        }
    }

    @Test("While the cloud is down, bind then unbind queue in order and reach it in order")
    func ordering() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let deviceID = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))).device.deviceID
            h.emulator.faults.set(EmulatorFaults(dropConnections: 1000))
            let bound = try await h.cloud.bind(try Self.bindAlice(deviceID))
            let unbound = try await h.cloud.unbind(deviceID: deviceID, source: .cli)
            #expect(bound.sync.state == .queued)
            #expect(unbound.sync.state == .queued)
            #expect(unbound.sync.message?.contains("queued behind") == true)
            h.emulator.faults.set(EmulatorFaults())
            let check = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud.http)
            #expect(check.divergences.filter { $0.kind == .syncPending }.count == 2)

            h.wallClock.advance(by: 3600)
            let report = await OutboxDrainer(cloud: h.cloud).drain()
            #expect(report.sent == 2 && report.isComplete)
            #expect(try h.emulator.store.effects(subject: deviceID).map(\.operation) == ["register", "bind", "unbind"])
            #expect(try await h.cloud.cloudBindings().isEmpty)
            #expect(try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud.http).isConsistent)
        }
    }

    @Test("A bind the cloud refuses for good becomes a dead row the sync check reports; a requeue retries it")
    func deadRow() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let deviceID = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))).device.deviceID
            // Someone bound it to bob directly in the cloud.
            let bobToken = try await h.cloud.createPairingToken(home: "attic", account: "bob")
            _ = try await h.cloud.bindInCloud(deviceID: deviceID, account: "bob", home: "attic", token: bobToken.token)

            let result = try await h.cloud.bind(try Self.bindAlice(deviceID))
            #expect(result.outcome.status == .bound)
            #expect(result.sync.state == .failed)
            #expect(result.sync.code == ErrorCode.deviceAlreadyBound.rawValue)

            let check = try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud.http)
            #expect(check.divergences.map(\.kind).contains(.syncFailed))
            #expect(check.divergences.map(\.kind).contains(.bindingDiffers))

            // Bob unbinds in the cloud; the operator requeues the dead row.
            _ = try await h.cloud.unbindInCloud(deviceID: deviceID)
            #expect(try h.registry.outbox.requeue(id: try #require(result.sync.outboxID)))
            let report = await OutboxDrainer(cloud: h.cloud).drain()
            #expect(report.sent == 1)
            #expect(try await CloudSyncChecker.check(registry: h.registry, cloud: h.cloud.http).isConsistent)
        }
    }

    @Test("Wrong credentials stop the drain at the first row and keep every row queued")
    func configurationStopsDrain() async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let first = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))).device.deviceID
            let second = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiB))).device.deviceID
            _ = try await h.cloud.bind(try Self.bindAlice(first), syncNow: false)
            _ = try await h.cloud.bind(try Self.bindAlice(second), syncNow: false)
            let impostor = try h.makeCloud(
                credentials: try CloudCredentials(clientID: CloudHarness.credentials.clientID, secret: "not-the-secret")
            )
            let report = await OutboxDrainer(cloud: impostor).drain()
            await impostor.shutdown()
            #expect(report.sent == 0)
            #expect(report.stoppedBy?.contains("NBGW_CLOUD_SECRET") == true)
            #expect(try h.registry.outbox.counts()[.pending] == 2)
            #expect(try h.emulator.stats().effects("bind") == 0)
        }
    }

    @Test("Marking done happens once: a second completion or a foreign owner changes nothing")
    func doneOnce() async throws {
        try await CloudHarness.with { h async throws in
            let entry = try h.registry.outbox.enqueue(
                Registry.OutboxRequest(operation: .unbind, subject: "nb1", payload: #"{"deviceID":"nb1"}"#)
            )
            let claimed = try #require(try h.registry.outbox.claim(owner: "a", lease: .seconds(60)).first)
            #expect(claimed.id == entry.id && claimed.state == .inflight && claimed.attempts == 1)
            #expect(try h.registry.outbox.claim(owner: "b", lease: .seconds(60)).isEmpty)
            #expect(!(try h.registry.outbox.complete(id: entry.id, owner: "b", result: "{}")))
            #expect(try h.registry.outbox.complete(id: entry.id, owner: "a", result: "{}"))
            #expect(!(try h.registry.outbox.complete(id: entry.id, owner: "a", result: "{}")))
            #expect(!(try h.registry.outbox.fail(id: entry.id, owner: "a", code: "X", message: "m", retryAfter: nil)))
            #expect(try h.registry.outbox.entry(id: entry.id)?.state == .done)
        }
    }
}
