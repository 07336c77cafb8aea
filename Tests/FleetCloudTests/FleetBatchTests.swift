import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import Provisioning
import Registry
import TestPostgres
import Testing
import TuyaCloud

/// The batch endpoint: a gateway's backlog drains in a few requests, every call exactly as if it
/// had been sent alone.
@Suite("Fleet cloud: batches")
struct FleetBatchTests {
    /// The node's request counter for `route` (its metrics listener), 0 when absent.
    static func requests(_ metricsPort: Int, route: String) async throws -> Int {
        let (status, output, errors) = await TestPostgres.run(
            "/usr/bin/curl",
            ["-sS", "--max-time", "5", "http://127.0.0.1:\(metricsPort)/metrics"]
        )
        guard status == 0 else { throw TestPostgresError("metrics: \(errors)") }
        return output.split(separator: "\n")
            .filter { $0.hasPrefix("nbgw_cloud_requests_total{route=\"\(route)\"") }
            .compactMap { Int($0.split(separator: " ").last ?? "") }
            .reduce(0, +)
    }

    @Test("A backlog of 150 binds and 20 unbinds drains through a handful of batch requests, every effect once")
    func backlogsDrainInBatches() async throws {
        try await FleetFixture.with(nodes: 0) { fleet in
            let metrics = Int.random(in: 20_000...32_000)
            let node = try await fleet.startNode(["--tenant-rate", "0", "--metrics-listen", "127.0.0.1:\(metrics)"])
            let gateway = try FleetGateway(
                name: "gw",
                credentials: try await fleet.addGateway("gw"),
                baseURL: node.baseURL,
                directory: fleet.directory
            )
            let result: Result<Void, Error>
            do {
                try gateway.addAccount("alice")
                var ids: [String] = []
                for imei in FleetIMEIs.make(150, base: 35_693_803_600_000) {
                    ids.append(
                        try await gateway.registrar.register(ModuleIdentity(imei: try IMEI(imei))).device.deviceID
                    )
                }
                // Offline for a while: the binds, then unbinds of the first 20, all queued.
                for id in ids { _ = try gateway.bindQueued(id, account: "alice") }
                #expect(try await gateway.drainUntilSettled(within: .seconds(60)))
                for id in ids.prefix(20) {
                    _ = try gateway.registry.bindings.unbind(deviceID: id, source: .cli, queueForCloud: true)
                }
                #expect(try await gateway.drainUntilSettled(within: .seconds(60)))

                let counts = try gateway.registry.outbox.counts()
                #expect(counts[.done, default: 0] == 150 + 150 + 20, "\(counts)")
                #expect(try await fleet.count("SELECT count(*) FROM binding") == 130)
                #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'bound'") == 150)
                #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'unbound'") == 20)
                let batches = try await Self.requests(metrics, route: "POST \(CloudAPI.batchPath)")
                let single = try await Self.requests(metrics, route: "POST \(CloudAPI.bindPath)")
                // 150 binds: tokens and binds in two chunks each (100 + 50); 20 unbinds: one.
                #expect(batches == 5, "batch requests: \(batches)")
                #expect(single == 0, "no bind went alone")
                result = .success(())
            } catch {
                result = .failure(error)
            }
            await gateway.shutdown()
            try result.get()
        }
    }

    @Test(
        "A call sent in a batch and again alone, or a batch sent twice, replays its first answer; a conflict fails alone"
    )
    func batchedCallsReplayAndFailAlone() async throws {
        try await FleetFixture.with { fleet in
            let a = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            let b = try FleetGateway(
                name: "b",
                credentials: try await fleet.addGateway("b"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            let result: Result<Void, Error>
            do {
                var ids: [String] = []
                for imei in FleetIMEIs.make(3, base: 35_693_803_700_000) {
                    ids.append(try await a.registrar.register(ModuleIdentity(imei: try IMEI(imei))).device.deviceID)
                }
                // B owns the third device already.
                let theirs = try await b.http.createPairingToken(home: "den", account: "bob")
                _ = try await b.http.bindInCloud(deviceID: ids[2], account: "bob", home: "den", token: theirs.token)

                let items = ids.map { id in
                    CloudBatchItem(
                        change: CloudBindingChange(action: .bind, deviceID: id, account: "alice", home: "lab"),
                        attempt: CloudAttempt(idempotencyKey: IdempotencyKey.make(), patience: .background)
                    )
                }
                let first = await a.http.send(batch: items)
                let again = await a.http.send(batch: items)
                let alone = try await a.http.send(items[0].change, attempt: items[0].attempt)
                #expect(first.count == 3)
                #expect(try first[0].get() == (try again[0].get()) && (try first[0].get()) == alone)
                #expect(try first[1].get() == (try again[1].get()))
                guard case .failure(let conflict) = first[2] else {
                    Issue.record("a device bound elsewhere was bound again in a batch")
                    return
                }
                #expect(conflict.kind == .refused && conflict.error.code == .deviceAlreadyBound, "\(conflict)")
                #expect(conflict.error.message.contains("to account bob through gateway b"), "\(conflict)")
                #expect(try await fleet.count("SELECT count(*) FROM binding WHERE uid = 'alice'") == 2)
                #expect(try await fleet.count("SELECT count(*) FROM event WHERE kind = 'bound'") == 3)
                #expect(try await fleet.count("SELECT count(*) FROM pairing_token WHERE used_at IS NOT NULL") == 3)
                result = .success(())
            } catch {
                result = .failure(error)
            }
            await a.shutdown()
            await b.shutdown()
            try result.get()
        }
    }
}
