import Discovery
import Foundation
import Testing

/// `UdevDiscovery.enumerate()` in a process that sees umockdev's fake modules (the testbed's `list` child).
@Suite(
    "udev enumeration of fake modules under umockdev",
    .enabled(if: TestbedHarness.isAvailable, TestbedHarness.skipReason)
)
struct UdevEnumerationTests {
    @Test("a fake Quectel BG95 and a fake CP210x bridge: IDs, interfaces, nodes, drivers, serials, links, decisions")
    func quectelAndBridge() async throws {
        let finished = try await TestbedHarness.run(
            serve: ["--add", "bg95:m1", "--add", "cp210x:b1"],
            child: ["list", "--usb-only"]
        )
        #expect(finished.status == 0, "\(finished.stderr)")
        let modules = try finished.events("added").map(TestbedModule.init)
        let reported = try finished.events("port").map(ReportedPort.init)
        #expect(modules.map(\.kind) == ["bg95", "cp210x"])
        #expect(reported.count == modules.reduce(0) { $0 + $1.ports.count })
        #expect(finished.events("listed").first?["count"] as? Int == reported.count)

        for module in modules {
            let found = reported.filter { $0.port.usbDeviceSyspath == module.usbDevice }
            #expect(found.count == module.ports.count, "\(module.name)")
            for expected in module.ports {
                let seen = try #require(
                    found.first { $0.port.devnode == expected.devnode },
                    "\(expected.devnode) not enumerated"
                )
                #expect(seen.port.syspath == expected.syspath)
                #expect(seen.port.subsystem == "tty")
                #expect(seen.port.vendorID == module.vendorID && seen.port.productID == module.productID)
                #expect(seen.port.interfaceNumber == expected.interface)
                #expect(seen.port.serial == module.serial)
                #expect(seen.port.driver == (module.kind == "bg95" ? "option" : "cp210x"))
                let byID = "-if\(UdevPortHex.two(expected.interface))-port0"
                #expect(
                    seen.port.links.contains { $0.hasPrefix("/dev/serial/by-id/usb-") && $0.hasSuffix(byID) },
                    "\(seen.port.links)"
                )
                #expect(seen.port.links.contains { $0.hasPrefix("/dev/serial/by-path/pci-0000:00:14.0-usb-0:") })
                #expect(seen.port.properties["ID_USB_INTERFACE_NUM"] == UdevPortHex.two(expected.interface))
                #expect(
                    seen.probe == TestbedModule.shouldProbe(role: expected.role),
                    "\(expected.devnode): \(seen.reason)"
                )
            }
        }
        let at = try #require(reported.first { $0.port.vendorID == "2c7c" && $0.port.interfaceNumber == 2 })
        #expect(at.dialectHint == "quectel-bg9x" && at.reason.contains("AT port (if 02)"))
        #expect(reported.filter { $0.port.vendorID == "2c7c" && !$0.probe }.map(\.port.interfaceNumber) == [0, 1, 4])
        let bridge = try #require(reported.first { $0.port.vendorID == "10c4" })
        #expect(bridge.port.productID == "ea60" && bridge.dialectHint == nil && bridge.reason.contains("CP210x"))
        #expect(bridge.action == "skip" && bridge.reason.contains("not probed by default"), "\(bridge.reason)")
        #expect(
            bridge.port.manufacturer == "Silicon Labs" && bridge.port.product == "CP2102 USB to UART Bridge Controller"
        )
    }

    @Test(
        "CDC ACM and CH340 modules without udevd's properties: IDs and serials come from sysfs, decisions still right"
    )
    func sysfsOnly() async throws {
        let finished = try await TestbedHarness.run(
            serve: ["--no-udev-properties", "--add", "thingy91:t1", "--add", "arduino:a1", "--add", "ch340:c1"],
            child: ["list", "--usb-only"]
        )
        #expect(finished.status == 0, "\(finished.stderr)")
        let modules = try finished.events("added").map(TestbedModule.init)
        let reported = try finished.events("port").map(ReportedPort.init)
        #expect(reported.count == 4)
        for module in modules {
            for expected in module.ports {
                let seen = try #require(reported.first { $0.port.devnode == expected.devnode })
                #expect(seen.port.vendorID == module.vendorID && seen.port.productID == module.productID)
                #expect(seen.port.interfaceNumber == expected.interface)
                #expect(seen.port.serial == module.serial)
                #expect(seen.port.links.isEmpty && seen.port.properties.isEmpty)
                #expect(seen.port.driver == (module.kind == "ch340" ? "ch341" : "cdc_acm"))
                #expect(
                    seen.probe == TestbedModule.shouldProbe(role: expected.role),
                    "\(expected.devnode): \(seen.reason)"
                )
            }
        }
        #expect(reported.filter { $0.port.devnode.hasPrefix("/dev/ttyACM") }.count == 3)
        let thingy = try #require(reported.first { $0.port.vendorID == "1915" && $0.probe })
        #expect(thingy.dialectHint == "nordic-nrf91" && thingy.port.interfaceNumber == 0)
    }
}
