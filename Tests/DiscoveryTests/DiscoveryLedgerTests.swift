import Discovery
import Foundation
import Testing

/// The record of what discovery decided: its JSON shape (the control socket and `nbgw discovery list
/// --json` serve it), the thread-safe ledger, and the text table.
@Suite("Discovery ledger, entries and table")
struct DiscoveryLedgerTests {
    static func entry(_ devnode: String, _ decision: DiscoveryEntry.Decision = .skip) -> DiscoveryEntry {
        DiscoveryEntry(devnode: devnode, decision: decision, reason: "why", source: .builtin("rule"))
    }

    @Test("an entry's JSON has stable camelCase keys, leaves out what udev does not know, and reads back")
    func json() throws {
        let decision = CandidatePolicy.standard.decide(CandidateSelectionTests.zigbee)
        let entry = DiscoveryEntry(port: CandidateSelectionTests.zigbee, decision: decision)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(entry)) as? [String: Any])
        #expect(
            Set(object.keys)
                == [
                    "devnode", "syspath", "subsystem", "vendorID", "productID", "manufacturer", "product", "serial",
                    "interfaceNumber", "driver", "links", "decision", "reason", "source",
                ]
        )
        #expect(object["decision"] as? String == "skip")
        #expect(object["manufacturer"] as? String == "ITead")
        #expect(object["product"] as? String == "Sonoff Zigbee 3.0 USB Dongle Plus")
        #expect(object["interfaceNumber"] as? Int == 0)
        let source = try #require(object["source"] as? [String: Any])
        #expect(source["kind"] as? String == "builtin")
        #expect(source["rule"] as? String == "[discovery] generic_bridges = \"tagged\" (default)")
        #expect(try JSONDecoder().decode(DiscoveryEntry.self, from: encoder.encode(entry)) == entry)

        let bare = String(
            decoding: try encoder.encode(Self.entry("/dev/pts/7", .static)),
            as: UTF8.self
        )
        #expect(
            bare
                == #"{"decision":"static","devnode":"/dev/pts/7","links":[],"reason":"why","#
                + #""source":{"kind":"builtin","rule":"rule"}}"#
        )
        let configured = DecisionSource.config("[discovery] probe entry \"x\"", at: .init(file: "/f", line: 3))
        #expect(
            String(decoding: try encoder.encode(configured), as: UTF8.self)
                == #"{"file":"/f","kind":"config","line":3,"rule":"[discovery] probe entry \"x\""}"#
        )
    }

    @Test("the ledger keeps one entry per devnode, forgets unplugged ports, keeps [[ports]] entries bare")
    func ledger() {
        let ledger = DiscoveryLedger()
        ledger.record(
            DiscoveryEntry(
                port: CandidateSelectionTests.zigbee,
                decision: CandidatePolicy.standard.decide(CandidateSelectionTests.zigbee)
            )
        )
        ledger.record(Self.entry("/dev/ttyUSB2", .probe))
        ledger.record(Self.entry("/dev/ttyUSB2", .ignored))
        var staticPort = DiscoveryEntry(
            port: CandidateSelectionTests.zigbee,
            decision: .static,
            reason: "listed",
            source: .builtin("x")
        )
        staticPort.devnode = "/dev/ttyS1"
        ledger.record(staticPort)
        #expect(ledger.entries().map(\.devnode) == ["/dev/ttyS1", "/dev/ttyUSB0", "/dev/ttyUSB2"])
        #expect(ledger.entry(devnode: "/dev/ttyUSB2")?.decision == .ignored)

        ledger.remove(devnode: "/dev/ttyUSB0")
        ledger.remove(devnode: "/dev/ttyS1")
        ledger.remove(devnode: "/dev/never-seen")
        #expect(ledger.entries().map(\.devnode) == ["/dev/ttyS1", "/dev/ttyUSB2"])
        let kept = ledger.entry(devnode: "/dev/ttyS1")
        #expect(kept?.decision == .static && kept?.vendorID == nil && kept?.links == [] && kept?.reason == "listed")
    }

    @Test("concurrent writers and readers: every entry lands, readers always see a consistent list")
    func concurrent() async {
        let ledger = DiscoveryLedger()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<100 { ledger.record(Self.entry("/dev/ttyW\(writer)-\(index)")) }
                }
            }
            group.addTask {
                for _ in 0..<50 {
                    let seen = ledger.entries()
                    #expect(Set(seen.map(\.devnode)).count == seen.count)
                }
            }
        }
        #expect(ledger.entries().count == 800)
    }

    @Test("the table: a row per port, the reason under it, the rule when the reason does not name it")
    func table() {
        let zigbee = CandidateSelectionTests.zigbee
        let entries = [
            DiscoveryEntry(port: zigbee, decision: CandidatePolicy.standard.decide(zigbee)),
            DiscoveryEntry(
                port: CandidateSelectionTests.tagged(zigbee, ["ID_NBGW_IGNORE": "1"]),
                decision: CandidatePolicy.standard.decide(
                    CandidateSelectionTests.tagged(zigbee, ["ID_NBGW_IGNORE": "1"])
                )
            ),
            DiscoveryEntry(
                devnode: "/dev/pts/7",
                decision: .static,
                reason: "listed under [[ports]] in the config",
                source: DecisionSource(kind: .config, rule: "[[ports]] path = \"/dev/pts/7\"")
            ),
        ]
        let lines = DiscoveryEntry.table(entries)
        #expect(
            lines == [
                "PORT          DECISION  USB        IF  DRIVER  DEVICE",
                "/dev/ttyUSB0  skip      10c4:ea60  00  cp210x  ITead Sonoff Zigbee 3.0 USB Dongle Plus",
                "    generic USB-UART bridge CP210x 10c4:ea60 (not probed by default: tag it ID_NBGW_PROBE=1 or list it in [discovery] probe)",
                "    rule: [discovery] generic_bridges = \"tagged\" (default)",
                "/dev/ttyUSB0  ignored   10c4:ea60  00  cp210x  ITead Sonoff Zigbee 3.0 USB Dongle Plus",
                "    ID_NBGW_IGNORE=1 (udev rule)",
                "/dev/pts/7    static    -          -   -       -",
                "    listed under [[ports]] in the config",
                "    rule: [[ports]] path = \"/dev/pts/7\" (the config)",
            ],
            "\(lines.joined(separator: "\n"))"
        )
    }

    @Test("USB strings are the device's: control and bidi characters never reach the terminal")
    func untrustedStrings() {
        var port = CandidateSelectionTests.zigbee
        port.manufacturer = "Evil\u{1B}[2J"
        port.product = "Stick\u{202E}gnp.exe\u{07}"
        let lines = DiscoveryEntry.table([DiscoveryEntry(port: port, decision: CandidatePolicy.standard.decide(port))])
        let row = lines[1]
        #expect(!row.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
        #expect(row.hasSuffix(#"Evil\u{1b}[2J Stick\u{202e}gnp.exe\u{7}"#), "\(row)")
    }
}
