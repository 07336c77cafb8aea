import Discovery
import Foundation
import Gateway
import Logging
import Synchronization
import Testing

@testable import Daemon

/// The daemon's discovery path fills the ledger: static ports at start (an ignored one left out and
/// logged), udev ports as they come and go, each with the decision the gateway acts on.
@Suite("discovery path: the ledger the daemon fills")
struct DiscoveryRecorderTests {
    final class Lines: Sendable {
        let storage = Mutex<[String]>([])
        var all: [String] { storage.withLock { $0 } }
    }

    struct Recording: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(
            level: Logger.Level,
            message: Logger.Message,
            metadata: Logger.Metadata?,
            source: String,
            file: String,
            function: String,
            line: UInt
        ) {
            let fields = (metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            lines.storage.withLock { $0.append("\(level) \(message) \(fields.joined(separator: " "))") }
        }
    }

    @Test("static ports, hot-plug and unplug: every port recorded with the decision the gateway gets")
    func recorder() throws {
        let lines = Lines()
        let configuration = try DaemonConfiguration.parse(
            toml: "[discovery]\nignore = [\"serial:ignored-stick\"]\n",
            file: "/etc/nbgw/nbgwd.toml"
        )
        let ledger = DiscoveryLedger()
        let recorder = DiscoveryRecorder(
            mapper: PortEventMapper(
                policy: configuration.discovery.candidatePolicy,
                staticPorts: ["/dev/pts/3", "/dev/ttyUSB1"],
                canonical: { $0 }
            ),
            ledger: ledger,
            logger: Logger(label: "test") { _ in Recording(lines: lines) }
        )
        var ignoredStick = PortEventMapperDiscoveryTests.zigbee
        ignoredStick.devnode = "/dev/ttyUSB1"
        ignoredStick.serial = "ignored-stick"

        let admitted = recorder.admit(
            staticPorts: [.init(path: "/dev/pts/3", origin: .config), .init(path: "/dev/ttyUSB1", origin: .config)],
            udevPorts: [ignoredStick]
        )
        #expect(admitted.map(\.path) == ["/dev/pts/3"])
        #expect(ledger.entries().map(\.devnode) == ["/dev/pts/3", "/dev/ttyUSB1"])
        #expect(ledger.entry(devnode: "/dev/ttyUSB1")?.decision == .ignored)
        #expect(lines.all.contains { $0.hasPrefix("warning static port ignored") && $0.contains("ignored-stick") })

        // Hot-plug: the untagged stick is recorded and skipped; a tagged board is recorded and appears.
        let stick = PortEventMapperDiscoveryTests.zigbee
        let skipped = recorder.handle(.added(stick))
        let stickEntry = try #require(ledger.entry(devnode: "/dev/ttyUSB0"), "the stick was not recorded")
        #expect(stickEntry.decision == .skip)
        #expect(skipped == .skipped(devnode: "/dev/ttyUSB0", reason: stickEntry.reason))
        let board = PortEventMapperDiscoveryTests.tagged(["ID_NBGW_PROBE": "1"], devnode: "/dev/ttyUSB2")
        guard case .event(.appeared(let port)) = recorder.handle(.added(board)) else {
            Issue.record("the tagged board did not appear")
            return
        }
        #expect(port.path == "/dev/ttyUSB2")
        #expect(ledger.entry(devnode: "/dev/ttyUSB2")?.decision == .probe)
        // The ignored stick re-announced by udev: recorded ignored, never a port event; logged.
        ledger.remove(devnode: "/dev/ttyUSB1")
        let vetoed = recorder.handle(.added(ignoredStick))
        let vetoedEntry = try #require(ledger.entry(devnode: "/dev/ttyUSB1"), "the ignored stick was not recorded")
        #expect(vetoedEntry.decision == .ignored)
        #expect(vetoed == .skipped(devnode: "/dev/ttyUSB1", reason: vetoedEntry.reason))
        #expect(lines.all.contains { $0.hasPrefix("info port ignored") })

        // Unplug: udev's ports leave the ledger; the gateway is told about the probed one.
        #expect(
            recorder.handle(.removed(devnode: "/dev/ttyUSB2", syspath: "x")) == .event(.vanished(path: "/dev/ttyUSB2"))
        )
        _ = recorder.handle(.removed(devnode: "/dev/ttyUSB0", syspath: "y"))
        #expect(ledger.entries().map(\.devnode) == ["/dev/pts/3", "/dev/ttyUSB1"])
        #expect(ledger.entry(devnode: "/dev/pts/3")?.decision == .static)
    }
}
