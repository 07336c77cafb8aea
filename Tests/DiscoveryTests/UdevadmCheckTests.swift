import Discovery
import Foundation
import Testing

/// Optional: systemd's own `udevadm test` over the testbed's records with our rules and the local template
/// (`udev-rules/check-with-udevadm.sh`).
/// Needs root (a private mount namespace), umockdev, and `NBGW_UDEVADM` naming a udevadm binary, e.g. one
/// unpacked with `apt-get download udev && dpkg-deb -x udev_*.deb /tmp/udev` (nothing gets installed).
@Suite("udev rules under systemd's udevadm")
struct UdevadmCheckTests {
    static let udevadm: String? = ProcessInfo.processInfo.environment["NBGW_UDEVADM"].flatMap {
        FileManager.default.isExecutableFile(atPath: $0) && getuid() == 0 && TestbedHarness.isAvailable ? $0 : nil
    }

    @Test(
        "udevadm parses the rules and the local template without a warning; tags lead to the policy's decisions",
        .enabled(
            if: udevadm != nil,
            "set NBGW_UDEVADM=/path/to/udevadm (as root, with umockdev) to run systemd's udevadm"
        )
    )
    func udevadmAgrees() throws {
        let kinds = ["bg95", "bg96", "sim7080", "thingy91", "cp210x", "zigbee", "bc66board"]
        let process = Process()
        process.executableURL = RepositoryFiles.root.appendingPathComponent("udev-rules/check-with-udevadm.sh")
        process.arguments = [TestbedHarness.binary] + kinds
        var environment = ProcessInfo.processInfo.environment
        environment["UDEVADM"] = Self.udevadm
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")

        let sections = text.components(separatedBy: "== ").dropFirst()
        #expect(sections.count == 17, "\(text)")
        for section in sections {
            let lines = section.split(separator: "\n").map(String.init)
            let header = lines[0].split(separator: " ").map(String.init)
            var properties: [String: String] = [:]
            for line in lines.dropFirst() {
                let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2, !line.contains(": ") { properties[pair[0]] = pair[1] }
            }
            switch header[0] {
            case "cp210x":
                #expect(properties.isEmpty, "\(section)")
                continue
            case "zigbee":
                // The template's second example: ignored, nothing else.
                #expect(properties == ["ID_NBGW_IGNORE": "1"], "\(section)")
                continue
            case "bc66board":
                // The template's first example: opted in with its dialect, kept from ModemManager, dialout 0660.
                #expect(
                    properties == [
                        "ID_NBGW_PROBE": "1", "ID_NBGW_DIALECT": "quectel-bc66", "ID_MM_DEVICE_IGNORE": "1",
                    ],
                    "\(section)"
                )
                #expect(section.contains("GROUP 20") && section.contains("MODE 0660"), "\(section)")
                let decision = CandidatePolicy.standard.decide(
                    UdevPort(
                        devnode: "/dev/" + header[1],
                        syspath: "/sys/" + header[1],
                        driver: "cp210x",
                        vendorID: "10c4",
                        productID: "ea60",
                        properties: properties
                    )
                )
                #expect(decision.isProbe && decision.dialectHint == "quectel-bc66", "\(decision)")
                continue
            default:
                break
            }
            let links = properties["DEVLINKS"]?.split(separator: " ").map(String.init) ?? []
            let byPath = try #require(links.first { $0.hasPrefix("/dev/nbgw/by-path/") }, "\(section)")
            let interface = try #require(Int(byPath.components(separatedBy: "-if").last!.prefix(2), radix: 16))
            let ids = try #require(links.first { $0.hasPrefix("/dev/nbgw/by-id/") }).dropFirst("/dev/nbgw/by-id/".count)
                .split(separator: "-").map(String.init)
            let decision = CandidatePolicy.standard.decide(
                UdevPort(
                    devnode: "/dev/" + header[1],
                    syspath: "/sys/" + header[1],
                    vendorID: ids[0],
                    productID: ids[1],
                    interfaceNumber: interface
                )
            )
            #expect((properties["ID_NBGW_AT_PORT"] == "1") == decision.isProbe, "\(section)")
            #expect(properties["ID_NBGW_DIALECT"] == decision.dialectHint, "\(section)")
            #expect(
                properties["ID_MM_DEVICE_IGNORE"] == "1" && section.contains("GROUP 20")
                    && section.contains("MODE 0660")
            )
        }
    }
}
