import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
import Provisioning
import TestPostgres
import Testing
import TuyaCloud

/// The event stream: one event per effect, in order, resumable from a cursor, never skipping an
/// event whose transaction committed after a later one.
/// Serialized: the stream holds back behind any open write transaction of the cluster (xids are
/// cluster-wide), and the second test holds one open on purpose.
@Suite("Fleet cloud: events", .serialized)
struct FleetEventsTests {
    /// Reads as a consumer does, from `cursor` until `count` events came (or 20 s passed): the
    /// stream may hold back behind another test's transaction of the same cluster for a moment.
    static func collect(_ cloud: HTTPCloud, after cursor: String?, count: Int) async throws -> CloudAPI.EventPage {
        var events: [CloudAPI.Event] = []
        var next = cursor
        let end = ContinuousClock.now.advanced(by: .seconds(20))
        while events.count < count && ContinuousClock.now < end {
            let page = try await cloud.cloudEvents(after: next, limit: count - events.count, wait: 2)
            events += page.events
            next = page.nextCursor
        }
        return CloudAPI.EventPage(events: events, nextCursor: next ?? "0-0")
    }

    @Test("Registrations, binds, conflicts and unbinds come out once each, in order, resumable from any cursor")
    func eventsAreAnOrderedResumableStream() async throws {
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
            defer {
                Task {
                    await a.shutdown(); await b.shutdown()
                }
            }
            let imeis = FleetIMEIs.make(2, base: 35_693_803_200_000)
            var devices: [String] = []
            for imei in imeis {
                devices.append(try await a.registrar.register(ModuleIdentity(imei: try IMEI(imei))).device.deviceID)
            }
            let token = try await a.http.createPairingToken(home: "lab", account: "alice")
            _ = try await a.http.bindInCloud(deviceID: devices[0], account: "alice", home: "lab", token: token.token)
            let theirs = try await b.http.createPairingToken(home: "den", account: "bob")
            _ = try? await b.http.bindInCloud(deviceID: devices[0], account: "bob", home: "den", token: theirs.token)
            _ = try await a.http.unbindInCloud(deviceID: devices[0])

            let all = try await Self.collect(a.http, after: nil, count: 5)
            #expect(all.events.map(\.type) == ["registered", "registered", "bound", "conflict", "unbound"])
            #expect(all.events.map(\.deviceID) == [devices[0], devices[1], devices[0], devices[0], devices[0]])
            #expect(all.events.map(\.gateway) == ["a", "a", "a", "b", "a"])
            #expect(all.events[0].detail == imeis[0] && all.events[2].detail == "alice")
            #expect(all.events[3].detail?.contains("to account alice through gateway a") == true)
            #expect(all.nextCursor == all.events.last?.cursor)

            // Resumed after the second event: the rest, nothing twice; at the end: nothing, same cursor.
            let rest = try await b.http.cloudEvents(after: all.events[1].cursor, limit: 2, wait: 5)
            #expect(rest.events.map(\.type) == ["bound", "conflict"])
            let end = try await b.http.cloudEvents(after: all.nextCursor)
            #expect(end.events.isEmpty && end.nextCursor == all.nextCursor)

            // A poll that waits gets the event written while it waits.
            let started = ContinuousClock.now
            async let waited = a.http.cloudEvents(after: all.nextCursor, wait: 10)
            try await Task.sleep(for: .milliseconds(600))
            _ = try await a.registrar.register(
                ModuleIdentity(imei: try IMEI(FleetIMEIs.make(1, base: 35_693_803_300_000)[0]))
            )
            let late = try await waited
            #expect(late.events.map(\.type) == ["registered"])
            #expect(ContinuousClock.now - started < .seconds(5), "the waiting poll answered when the event came")

            let bad = await errorOf { _ = try await a.http.cloudEvents(after: "yesterday") }
            #expect(bad?.message.contains("cursor") == true, "\(String(describing: bad))")
        }
    }

    @Test("An event of a transaction still open is not skipped by a consumer that read a later one")
    func openTransactionsHoldTheStreamBack() async throws {
        try await FleetFixture.with { fleet in
            let a = try FleetGateway(
                name: "a",
                credentials: try await fleet.addGateway("a"),
                baseURL: fleet.nodes[0].baseURL,
                directory: fleet.directory
            )
            defer { Task { await a.shutdown() } }
            let imeis = FleetIMEIs.make(2, base: 35_693_803_400_000)
            _ = try await a.registrar.register(ModuleIdentity(imei: try IMEI(imeis[0])))
            let first = try await Self.collect(a.http, after: nil, count: 1)
            #expect(first.events.count == 1)

            // A transaction takes an event id and stays open (a slow node) while a later one commits.
            let tenant = try await fleet.sql("SELECT tenant_id FROM gateway WHERE name = 'a'")
            async let slow = fleet.sql(
                "BEGIN; INSERT INTO event (tenant_id, at, kind, device_id, gateway) "
                    + "VALUES ('\(tenant)', 0, 'unbound', 'slow', 'a'); SELECT pg_sleep(4); COMMIT;"
            )
            try await Task.sleep(for: .milliseconds(1500))
            _ = try await a.registrar.register(ModuleIdentity(imei: try IMEI(imeis[1])))

            let meanwhile = try await a.http.cloudEvents(after: first.nextCursor)
            #expect(meanwhile.events.isEmpty, "the later event waits behind the open transaction: \(meanwhile.events)")
            _ = try await slow
            let after = try await Self.collect(a.http, after: first.nextCursor, count: 2)
            #expect(after.events.map(\.deviceID).first == "slow", "\(after.events)")
            #expect(after.events.count == 2)
        }
    }
}
