import Foundation
import Registry
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `nbgwd` on udev discovery, under umockdev: `nbgw-udev-testbed` fakes USB modules (a Quectel BG95 with
/// its four interfaces, a CP210x bridge listed in `[discovery] probe`) whose AT ttys are simulated
/// modules, and plugs and unplugs them while the daemon runs. The modem table follows.
extension DaemonProcessTests {
    /// `umockdev-wrapper` on the PATH, or nil.
    static let umockdevWrapper: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/umockdev-wrapper" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    @Test(
        "hot-plug under umockdev: plugs and unplugs are followed; only AT ports and the listed bridge are probed",
        .enabled(if: DaemonProcessTests.umockdevWrapper != nil, "umockdev-wrapper is missing: run tools/setup.sh"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: Binaries.udevTestbed.path),
            "nbgw-udev-testbed is not built: swift build --build-tests"
        )
    )
    func hotplug() async throws {
        let wrapper = try #require(Self.umockdevWrapper)
        let directory = try TemporaryDirectory()
        let store = directory.path("store.sqlite")
        let daemon = try DaemonProcess(
            config: "[discovery]\nprobe = [\"10c4:ea60\"]\n",
            directory: directory,
            arguments: ["--db", store, "--metrics-listen", "127.0.0.1:0", "--grace-period", "5"],
            launcher: [wrapper, Binaries.udevTestbed.path, "serve", "--add", "bg95:m1", "--time-scale", "0.05", "--"]
        )
        try await daemon.waitForReady()
        #expect(daemon.output.contains("\"event\":\"ready\""))
        // The BG95's AT interface (if 02) is probed; its diagnostic, NMEA and PPP ports are not.
        let first = try await daemon.waitForModems("the BG95 ready") { rows in
            rows.count == 1 && rows[0].state == "ready" && rows[0].deviceID != nil
        }
        let bg95 = first[0]
        #expect(bg95.port.hasSuffix("ttyUSB2"))
        #expect(bg95.deviceKey?.hasSuffix("usb1/1-1") == true)
        #expect(bg95.attributes["usb"] == "2c7c:0700")

        daemon.write("add cp210x m2")
        let both = try await daemon.waitForModems("the CP210x-bridged module ready") { rows in
            rows.filter { $0.state == "ready" }.count == 2
        }
        let bridged = try #require(both.first { $0.imei != bg95.imei })
        #expect(bridged.attributes["usb"] == "10c4:ea60")
        #expect(
            bridged.attributes["reason"]?.hasPrefix(
                "[discovery] probe entry \"10c4:ea60\" (\(daemon.configPath) line 2)"
            )
                == true,
            "\(bridged.attributes)"
        )

        daemon.write("remove m1")
        try await daemon.waitForModems("the BG95 absent after its unplug") { rows in
            rows.first { $0.imei == bg95.imei }?.state == "absent"
                && rows.first { $0.imei == bridged.imei }?.state == "ready"
        }

        // Another BG95 on the freed USB port: the testbed numbers modules by plug order, so it is a
        // new module (its own IMEI): its own row and device; the unplugged one keeps its row, absent.
        daemon.write("add bg95 m3")
        let third = try await daemon.waitForModems("a second BG95 ready") { rows in
            rows.filter { $0.state == "ready" }.count == 2 && rows.count == 3
        }
        #expect(third.first { $0.imei == bg95.imei }?.state == "absent")
        #expect(third.first { $0.imei == bg95.imei }?.deviceID == bg95.deviceID)
        #expect(Set(third.compactMap(\.imei)).count == 3)
        #expect(try Registry(path: store).directory.devices(limit: 100).count == 3)

        daemon.write("quit")
        let status = try await daemon.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "\(daemon.output)\n\(daemon.log.suffix(3000))")
        #expect(daemon.notifications.messages.last?.hasPrefix("STOPPING=1") == true)
    }
}
