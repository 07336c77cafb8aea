import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import Provisioning
import TestPostgres
import Testing
import TuyaCloud

/// Device management through the signed API, as an operator's script uses it: details one and
/// in bulk, the devices of a home, transfer, freeze, delete, and each change in the device's
/// operation log. Gateways read; only operators change.
@Suite("Fleet cloud: device management")
struct FleetDevicesTests {
    @Test("An operator transfers, freezes and deletes devices; each change is logged once; gateways cannot change")
    func operatorsManageDevicesAndEveryChangeIsLogged() async throws {
        try await FleetFixture.with { fleet in
            let url = fleet.nodes[0].baseURL
            let a = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: url,
                directory: fleet.directory
            )
            let ops = try FleetGateway(
                name: "ops",
                credentials: try await fleet.addOperator("ops"),
                baseURL: url,
                directory: fleet.directory
            )
            defer {
                Task {
                    await a.shutdown(); await ops.shutdown()
                }
            }
            var devices: [String] = []
            for imei in FleetIMEIs.make(3, base: 35_693_803_500_000) {
                devices.append(try await a.registrar.register(ModuleIdentity(imei: try IMEI(imei))).device.deviceID)
            }
            let token = try await a.http.createPairingToken(home: "lab", account: "alice")
            _ = try await a.http.bindInCloud(deviceID: devices[0], account: "alice", home: "lab", token: token.token)

            // Reads: one, in bulk (unknown ids listed apart), a home's.
            let one = try await ops.http.device(devices[0])
            #expect(one.binding?.uid == "alice" && one.binding?.home == "lab" && one.binding?.gateway == "a")
            #expect(!one.frozen && one.registeredBy == "a")
            let bulk = try await a.http.devices([devices[1], "nb-nosuch", devices[0]])
            #expect(bulk.list.map(\.deviceID) == [devices[1], devices[0]] && bulk.missing == ["nb-nosuch"])
            #expect(bulk.list[0].binding == nil)
            #expect(try await ops.http.devices(inHome: "lab").map(\.deviceID) == [devices[0]])

            // A gateway's credential may not change devices.
            let move = CloudAPI.TransferRequest(
                fromUID: "alice",
                fromHome: "lab",
                toUID: "bob",
                toHome: "den",
                reason: "sold to bob, ticket 7"
            )
            let byGateway = await Self.failure {
                try await a.http.transferDevice(devices[0], move, key: Self.key("t0"))
            }
            // 1106, which a gateway reads as its credentials lacking a right, with the cloud's words.
            #expect(byGateway?.code == .invalidArgument && byGateway?.message.contains("operator's credential") == true)

            // A transfer that names the wrong owner is refused, naming the right one.
            var stale = move
            stale.fromUID = "mallory"
            let wrongOwner = await Self.failure { try await ops.http.transferDevice(devices[0], stale) }
            #expect(wrongOwner?.code == .deviceAlreadyBound)
            #expect(wrongOwner?.message.contains("to account alice in home lab through gateway a") == true)

            // The transfer, its replay (same key: the first answer) and the same move again (unchanged).
            let moved = try await ops.http.transferDevice(devices[0], move, key: Self.key("t1"))
            #expect(moved.status == "transferred" && moved.device?.binding?.uid == "bob")
            #expect(moved.device?.binding?.home == "den" && moved.device?.binding?.gateway == "a")
            #expect(try await ops.http.transferDevice(devices[0], move, key: Self.key("t1")) == moved)
            #expect(try await ops.http.transferDevice(devices[0], move, key: Self.key("t2")).status == "unchanged")
            var stay = move
            (stay.fromUID, stay.fromHome) = ("bob", "den")
            #expect(try await ops.http.transferDevice(devices[0], stay).status == "unchanged")
            #expect(try await ops.http.devices(inHome: "lab").isEmpty)
            #expect(try await ops.http.devices(inHome: "den").map(\.deviceID) == [devices[0]])
            // Into a home of another account: refused, nothing moved.
            _ = try await a.http.createPairingToken(home: "carol-home", account: "carol")
            var intoTheirs = move
            (intoTheirs.fromUID, intoTheirs.fromHome, intoTheirs.toUID, intoTheirs.toHome) = (
                "bob", "den", "dave", "carol-home"
            )
            let theirs = await Self.failure { try await ops.http.transferDevice(devices[0], intoTheirs) }
            #expect(theirs?.code == .homeAccessDenied)
            #expect(try await ops.http.device(devices[0]).binding?.uid == "bob")

            // Frozen: binds refused with the freeze's own code and reason; unfrozen: binds again.
            let frozen = try await ops.http.freezeDevice(
                devices[1],
                frozen: true,
                reason: "RMA 42",
                key: Self.key("f1")
            )
            #expect(
                frozen.status == "frozen" && frozen.device?.frozen == true && frozen.device?.frozenReason == "RMA 42"
            )
            #expect(try await ops.http.freezeDevice(devices[1], frozen: true, reason: "again").status == "unchanged")
            let second = try await a.http.createPairingToken(home: "lab", account: "alice")
            let refused = await Self.failure {
                try await a.http.bindInCloud(deviceID: devices[1], account: "alice", home: "lab", token: second.token)
            }
            #expect(refused?.code == .permissionDenied && refused?.message.contains("RMA 42") == true)
            let outcome = try await a.http.pairingResult(token: second.token)
            #expect(outcome.errorDevices.map(\.errorCode) == [String(TuyaErrorCode.deviceFrozen)])
            #expect(try await ops.http.freezeDevice(devices[1], frozen: false, reason: "repaired").status == "unfrozen")
            let bound = try await a.http.bindInCloud(
                deviceID: devices[1],
                account: "alice",
                home: "lab",
                token: second.token
            )
            #expect(bound.status == "bound")

            // Deleted: gone from details, its log kept; deleting again says unknown.
            #expect(try await ops.http.deleteDevice(devices[2], key: Self.key("d1")).status == "deleted")
            #expect(await Self.failure { try await ops.http.device(devices[2]) }?.code == .unknownDevice)
            #expect(await Self.failure { try await ops.http.deleteDevice(devices[2]) }?.code == .unknownDevice)
            #expect(try await ops.http.deviceLog(devices[2]).map(\.type) == ["registered", "deleted"])

            // The operation log: every change once, by whom, with what.
            let log = try await a.http.deviceLog(devices[0])
            #expect(log.map(\.type) == ["registered", "bound", "transferred"])
            #expect(
                log[2].gateway == "ops" && log[2].detail == "from alice in lab to bob in den: sold to bob, ticket 7"
            )
            #expect(
                try await a.http.deviceLog(devices[1]).map(\.type) == ["registered", "frozen", "unfrozen", "bound"]
            )
            #expect(await Self.failure { try await a.http.deviceLog("nb-nosuch") }?.code == .unknownDevice)
        }
    }

    @Test("Another tenant's operator sees none of the devices and changes none")
    func tenantsSeeOnlyTheirOwnDevices() async throws {
        try await FleetFixture.with { fleet in
            try await fleet.cloudSucceeds(["tenants", "add", "globex"])
            let url = fleet.nodes[0].baseURL
            let a = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: url,
                directory: fleet.directory
            )
            let outsider = try FleetGateway(
                name: "x",
                credentials: try await fleet.addOperator("x", tenant: "globex"),
                baseURL: url,
                directory: fleet.directory
            )
            defer {
                Task {
                    await a.shutdown(); await outsider.shutdown()
                }
            }
            let imei = FleetIMEIs.make(1, base: 35_693_803_600_000)[0]
            let device = try await a.registrar.register(ModuleIdentity(imei: try IMEI(imei))).device.deviceID
            #expect(await Self.failure { try await outsider.http.device(device) }?.code == .unknownDevice)
            #expect(try await outsider.http.devices([device]).missing == [device])
            #expect(await Self.failure { try await outsider.http.deviceLog(device) }?.code == .unknownDevice)
            let freeze = await Self.failure { try await outsider.http.freezeDevice(device, frozen: true, reason: "no") }
            #expect(freeze?.code == .unknownDevice)
            #expect(await Self.failure { try await outsider.http.deleteDevice(device) }?.code == .unknownDevice)
            #expect(try await a.http.device(device).frozen == false)
        }
    }

    static func key(_ name: String) -> String { "devices-test-\(name)-0000" }

    /// The error `body` throws, nil when it succeeds (or throws something else: then the
    /// expectation on the code fails too).
    static func failure<T>(_ body: () async throws -> T) async -> NBGWError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? NBGWError
        }
    }
}
