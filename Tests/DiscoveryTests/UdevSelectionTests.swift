import Discovery
import Foundation
import Testing

/// Generic bridges through the real enumeration path under umockdev: a Zigbee-like CP2102N (the Sonoff
/// ZBDongle-P's IDs and strings) is skipped by default and never written to; the same stick tagged
/// `ID_NBGW_PROBE=1`, or named by a `[discovery] probe` entry of each kind, is probed; an ignore wins.
@Suite(
    "generic bridges under umockdev: skipped by default, opted in by tag or config",
    .enabled(if: TestbedHarness.isAvailable, TestbedHarness.skipReason)
)
struct UdevSelectionTests {
    @Test("the Zigbee stick is skipped by default with its USB strings; the tagged one is probed")
    func zigbeeSkippedTaggedProbed() async throws {
        let finished = try await TestbedHarness.run(
            serve: ["--add", "zigbee:z1", "--add", "zigbee:z2:ID_NBGW_PROBE=1"],
            child: ["list", "--usb-only"]
        )
        #expect(finished.status == 0, "\(finished.stderr)")
        let modules = try finished.events("added").map(TestbedModule.init)
        let reported = try finished.events("port").map(ReportedPort.init)
        #expect(reported.count == 2)
        let plain = try #require(reported.first { $0.port.devnode == modules[0].ports[0].devnode })
        let tagged = try #require(reported.first { $0.port.devnode == modules[1].ports[0].devnode })
        for port in [plain.port, tagged.port] {
            #expect(port.vendorID == "10c4" && port.productID == "ea60" && port.driver == "cp210x")
            #expect(port.manufacturer == "ITead" && port.product == "Sonoff Zigbee 3.0 USB Dongle Plus")
        }
        #expect(plain.action == "skip")
        #expect(
            plain.reason
                == "generic USB-UART bridge CP210x 10c4:ea60 (not probed by default: tag it ID_NBGW_PROBE=1 or list "
                + "it in [discovery] probe)"
        )
        #expect(plain.source["kind"] as? String == "builtin")
        #expect(tagged.action == "probe" && tagged.port.properties["ID_NBGW_PROBE"] == "1")
        #expect(tagged.source["kind"] as? String == "udev" && tagged.source["rule"] as? String == "ID_NBGW_PROBE=1")
    }

    @Test("a probe entry of each kind, read from udev's real facts, opts the stick in; an ignore entry wins")
    func matchersThroughEnumeration() async throws {
        // First learn the stick's serial and links as the Discovery library reads them.
        let first = try await TestbedHarness.run(serve: ["--add", "zigbee:z1"], child: ["list", "--usb-only"])
        let seen = try #require(try first.events("port").map(ReportedPort.init).first).port
        let serial = try #require(seen.serial)
        let byID = try #require(seen.links.first { $0.hasPrefix("/dev/serial/by-id/") })
        let byPath = try #require(seen.links.first { $0.hasPrefix("/dev/serial/by-path/") })
        #expect(byID.hasPrefix("/dev/serial/by-id/usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_\(serial)"))
        let entries = [
            "10c4:ea60", "serial:\(serial)", "by-id:usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_*",
            "by-path:" + byPath.dropFirst("/dev/serial/by-path/".count), seen.devnode, byID,
        ]
        for entry in entries {
            let finished = try await TestbedHarness.run(
                serve: ["--add", "zigbee:z1"],
                child: ["list", "--usb-only", "--probe", entry]
            )
            let port = try #require(try finished.events("port").map(ReportedPort.init).first, "\(finished.stderr)")
            #expect(port.action == "probe", "\(entry): \(port.reason)")
            #expect(port.source["rule"] as? String == "[discovery] probe entry \"\(entry)\"", "\(entry)")
        }
        let vetoed = try await TestbedHarness.run(
            serve: ["--add", "zigbee:z1:ID_NBGW_PROBE=1"],
            child: [
                "list", "--usb-only", "--generic-bridges", "probe", "--probe", "10c4:ea60", "--ignore",
                "serial:\(serial)",
            ]
        )
        let port = try #require(try vetoed.events("port").map(ReportedPort.init).first, "\(vetoed.stderr)")
        #expect(port.action == "ignored" && port.reason.hasPrefix("[discovery] ignore entry \"serial:\(serial)\""))
    }

    @Test("a host probing the candidates never writes to the untagged stick; in probe mode it does")
    func zigbeeNeverWritten() async throws {
        for mode in ["tagged", "probe"] {
            let session = try TestbedHarness.Session(
                serve: ["--add", "zigbee:z1", "--add", "cp210x:b1:ID_NBGW_PROBE=1"],
                child: ["at", "--candidates", "--hold", "--timeout", "0.5", "--generic-bridges", mode]
            )
            let stick = try TestbedModule(try await session.next(event: "added") { $0["name"] as? String == "z1" })
            let bridge = try TestbedModule(try await session.next(event: "added") { $0["name"] as? String == "b1" })
            // The tagged bridge answers in both modes: the host has run its candidates by then.
            let answer = try await session.next(event: "at") { $0["devnode"] as? String == bridge.ports[0].devnode }
            #expect(answer["final"] as? String == "OK")
            if mode == "probe" {
                _ = try await session.next(event: "at") { $0["devnode"] as? String == stick.ports[0].devnode }
            }
            session.send("stats z1")
            let stats = try await session.next(event: "stats") { $0["name"] as? String == "z1" }
            let ports = try #require(stats["ports"] as? [[String: Any]])
            #expect(ports.first?["devnode"] as? String == stick.ports[0].devnode)
            let received = try #require(ports.first?["bytesReceived"] as? Int)
            if mode == "tagged" {
                #expect(received == 0, "the untagged Zigbee stick was written to")
            } else {
                #expect(received >= 3, "in probe mode the host sends AT\\r to the stick: the counter must see it")
            }
            session.send("quit")
            _ = try await session.finish(within: TestbedHarness.lineBudget)
        }
    }
}
