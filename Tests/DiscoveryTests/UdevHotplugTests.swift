import Discovery
import Foundation
import Testing

/// `UdevDiscovery.events()` in a process that sees umockdev's fake modules come and go (the testbed's
/// `watch` child), while the testbed plugs and unplugs them on command.
@Suite(
    "udev hot-plug of fake modules under umockdev",
    .enabled(if: TestbedHarness.isAvailable, TestbedHarness.skipReason)
)
struct UdevHotplugTests {
    @Test("existing ports first, then hot-plugged ones once each, removals for exactly those, and no thread left")
    func addRemove() async throws {
        let session = try TestbedHarness.Session(serve: ["--add", "cp210x:b1:ID_NBGW_PROBE=1"], child: ["watch"])
        let bridge = try TestbedModule(try await session.next(event: "added") { $0["kind"] as? String == "cp210x" })
        // The enumeration's event for the bridge proves the monitor is already listening.
        let existing = try ReportedPort(try await session.next(event: "added") { $0["port"] != nil })
        #expect(existing.port.devnode == bridge.ports[0].devnode && existing.probe)

        session.send("add bg95 m2")
        var module = try TestbedModule(try await session.next(event: "added") { $0["name"] as? String == "m2" })
        var seen: [ReportedPort] = []
        for _ in module.ports {
            seen.append(try ReportedPort(try await session.next(event: "added") { $0["port"] != nil }))
        }
        #expect(Set(seen.map(\.port.devnode)) == Set(module.ports.map(\.devnode)))
        #expect(Set(seen.map(\.port.syspath)) == Set(module.ports.map(\.syspath)))
        #expect(seen.filter(\.probe).map(\.port.interfaceNumber) == [2])
        #expect(seen.allSatisfy { $0.port.usbDeviceSyspath == module.usbDevice && $0.port.serial == module.serial })

        session.send("remove m2")
        var removed: [(devnode: String, syspath: String)] = []
        for _ in module.ports {
            let line = try await session.next(event: "removed") { $0["devnode"] != nil }
            removed.append((line["devnode"] as! String, line["syspath"] as! String))
        }
        #expect(Set(removed.map(\.devnode)) == Set(module.ports.map(\.devnode)))
        #expect(Set(removed.map(\.syspath)) == Set(module.ports.map(\.syspath)))

        // Plugged in again: new nodes (the kernel would number them anew too), reported as new ports.
        session.send("add bg95 m3")
        module = try TestbedModule(try await session.next(event: "added") { $0["name"] as? String == "m3" })
        for _ in module.ports {
            let again = try ReportedPort(try await session.next(event: "added") { $0["port"] != nil })
            #expect(module.ports.contains { $0.devnode == again.port.devnode })
        }

        session.send("quit")
        let stopped = try await session.next(event: "stopped")
        #expect(stopped["monitorThreadsBefore"] as? Int == 1)
        #expect(stopped["monitorThreads"] as? Int == 0)
        let finished = try await session.finish(within: TestbedHarness.lineBudget)
        #expect(finished.status == 0, "\(finished.stderr)")
        let reports = finished.lines.filter { $0["port"] != nil }
        let reportedNodes = reports.compactMap { ($0["port"] as? [String: Any])?["devnode"] as? String }
        #expect(reportedNodes.count == Set(reportedNodes).count, "a port was reported twice: \(reportedNodes)")
        #expect(finished.events("removed").filter { $0["devnode"] as? String == bridge.ports[0].devnode }.isEmpty)
    }
}
