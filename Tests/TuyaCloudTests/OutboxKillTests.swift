import Cloud
import CloudEmulatorKit
import DeviceIdentity
import Foundation
import Provisioning
import Registry
import Testing
import TuyaCloud

#if canImport(Glibc)
import Glibc
#endif

/// The outbox against a real crash: a child process (this test binary, running only
/// ``OutboxKillHelper``) binds through the HTTP cloud and is killed with SIGKILL at a chosen point;
/// the parent then "restarts" on the same store and shows the cloud saw the bind exactly once.
@Suite("Outbox: a process killed mid-sync")
struct OutboxKillTests {
    enum KillPoint: String, CaseIterable {
        /// After the local bind and its outbox row committed, before any cloud call.
        case afterLocalCommit = "after-local-commit"
        /// After the cloud bound the device, before the row was marked done.
        case afterCloudCall = "after-cloud-call"
    }

    /// The running test binary (`swift test` runs the `.xctest` executable directly on Linux).
    static var testBinary: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    @Test(
        "SIGKILL between the local commit and the cloud call, or after it: one bind in the cloud after restart",
        arguments: KillPoint.allCases
    )
    func killedChild(point: KillPoint) async throws {
        try await CloudHarness.with { h async throws in
            try h.seedAccounts()
            let deviceID = try await h.cloud.register(ModuleIdentity(imei: try IMEI(Modules.imeiA))).device.deviceID

            let child = Process()
            child.executableURL = URL(fileURLWithPath: Self.testBinary)
            child.arguments = ["--testing-library", "swift-testing", "--filter", "OutboxKillHelper"]
            var environment = ProcessInfo.processInfo.environment
            environment["NBGW_KILL_HELPER_STORE"] = h.directory.appendingPathComponent("store.sqlite").path
            environment["NBGW_KILL_HELPER_DEVICE"] = deviceID
            environment["NBGW_KILL_HELPER_POINT"] = point.rawValue
            environment["NBGW_CLOUD_URL"] = h.emulator.baseURL
            environment["NBGW_CLOUD_CLIENT_ID"] = CloudHarness.credentials.clientID
            environment["NBGW_CLOUD_SECRET"] = CloudHarness.credentials.secret
            child.environment = environment
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            await Task.detached { child.waitUntilExit() }.value
            #expect(child.terminationReason == .uncaughtSignal)
            #expect(child.terminationStatus == SIGKILL)

            // Restart on the same store file.
            let registry = try h.reopenRegistry()
            #expect(try registry.bindings.find(deviceID: deviceID)?.account == "alice")
            let row = try #require(try registry.outbox.entries(states: [.pending, .inflight]).first)
            switch point {
            case .afterLocalCommit:
                #expect(row.state == .pending)
                #expect(try h.emulator.stats().effects("bind") == 0)
            case .afterCloudCall:
                #expect(row.state == .inflight)
                #expect(try h.emulator.stats().effects("bind") == 1)
            }
            // The child wrote its times with the real clock, ahead of this test's manual one by as
            // long as the child took (over a minute once, on a loaded CI machine); and a dead
            // process's lease (300 s) has to run out before anyone resends.
            h.wallClock.advance(by: max(0, Date().timeIntervalSince(h.wallClock.now())) + 360)
            let cloud = try h.makeCloud(registry: registry)
            let report = await OutboxDrainer(cloud: cloud).drain()
            await cloud.shutdown()
            #expect(report.sent == 1 && report.isComplete)
            #expect(try registry.outbox.entry(id: row.id)?.state == .done)
            let stats = try h.emulator.stats()
            #expect(stats.effects("bind") == 1)
            #expect(
                try await h.cloud.cloudBindings().map { "\($0.deviceID) \($0.uid)/\($0.assetID)" } == [
                    "\(deviceID) alice/lab"
                ]
            )
            if point == .afterCloudCall {
                #expect(stats.replays >= 1)
            }
        }
    }
}

/// Runs only inside the child process of ``OutboxKillTests`` (it returns at once otherwise).
@Suite("OutboxKillHelper: child process of the kill tests")
struct OutboxKillHelper {
    /// Kills this process when the bind's answer arrives: the cloud has acted, nothing local has.
    final class KillingTransport: CloudHTTPTransport {
        let inner = AsyncHTTPClientTransport(connectTimeout: .seconds(2))

        func send(_ request: CloudHTTPRequest, timeout: Duration) async throws -> CloudHTTPResponse {
            let response = try await inner.send(request, timeout: timeout)
            if request.url.hasSuffix(CloudAPI.bindPath) {
                kill(getpid(), SIGKILL)
            }
            return response
        }

        func shutdown() async { await inner.shutdown() }
    }

    @Test("does nothing unless started by the kill tests")
    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let store = environment["NBGW_KILL_HELPER_STORE"], let device = environment["NBGW_KILL_HELPER_DEVICE"],
            let point = environment["NBGW_KILL_HELPER_POINT"].flatMap(OutboxKillTests.KillPoint.init(rawValue:))
        else { return }
        let registry = try Registry(path: store)
        let configuration = try CloudConfiguration.fromEnvironment(environment)
        let cloud = GatewayCloud(
            http: HTTPCloud(configuration: configuration, transport: KillingTransport()),
            registry: registry
        )
        let command = BindCommand(deviceID: try DeviceID(device), account: "alice", home: "lab", source: .daemon)
        switch point {
        case .afterLocalCommit:
            _ = try await cloud.bind(command, syncNow: false)
            kill(getpid(), SIGKILL)
        case .afterCloudCall:
            _ = try await cloud.bind(command, syncNow: true)
        }
        // Not reached: the process is dead by now.
        Issue.record("the kill helper survived its kill point")
    }
}
