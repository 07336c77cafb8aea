import Foundation
import QRImage
import Registry
import Testing

/// `[labels] directory` on a real `nbgwd` with simulated modules: a label file per registered module.
@Suite("nbgwd label files", .serialized, .timeLimit(.minutes(3)))
struct DaemonLabelTests {
    @Test("every module that becomes ready gets <device id>.png (0640) whose code is its label, recorded as printed")
    func labelPerModule() async throws {
        let directory = try TemporaryDirectory()
        let labels = directory.path("labels")
        try FileManager.default.createDirectory(atPath: labels, withIntermediateDirectories: false)
        let simulator = try SimulatorProcess(["bg95", "bc66"], directory: directory)
        try await simulator.waitForPorts()
        let config = DaemonProcess.config(
            ports: simulator.ports.map(\.path),
            store: directory.path("store.sqlite"),
            extra: "\n[labels]\ndirectory = \"\(labels)\"\nformat = \"png\"\nsize = \"30x30mm\"\n"
        )
        let daemon = try DaemonProcess(config: config, directory: directory)
        try await daemon.waitForReady()
        let rows = try await daemon.waitForModems("both ready") { rows in
            rows.filter { $0.state == "ready" && $0.deviceID != nil }.count == 2
        }
        let registry = try Registry(path: daemon.storePath)
        for row in rows {
            let deviceID = try #require(row.deviceID)
            let path = labels + "/\(deviceID).png"
            let deadline = ContinuousClock.now.advanced(by: .seconds(20))
            while !FileManager.default.fileExists(atPath: path), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            var attributes = stat()
            #expect(stat(path, &attributes) == 0, "\(daemon.log)")
            #expect(attributes.st_mode & 0o777 == 0o640)
            let device = try #require(try registry.directory.device(id: deviceID))
            #expect(try QRImageReader.decode(path: path) == ["https://nbgw.local/d/" + device.labelCode])
            let prints = try registry.labels.prints(deviceID: deviceID)
            #expect(prints.map(\.source) == ["daemon"] && prints.first?.destination == path)
        }
        #expect(try registry.labels.devices(.unprinted).isEmpty)
        #expect(daemon.log.contains("label written"))
    }
}
