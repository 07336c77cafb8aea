import Discovery
import Testing

/// The local rules template (`udev-rules/89-nbgw-local.rules.example`) and `ID_NBGW_IGNORE` in our own rules:
/// grammar, what the rules set on the template's own examples, and the decisions those properties lead to.
@Suite("udev rules: the local template and ID_NBGW_IGNORE")
struct UdevLocalRulesTests {
    /// The template then our rules, in udev's order (89 before 90), as one file.
    static func evaluator() throws -> UdevRulesEvaluator {
        let text =
            try RepositoryFiles.text(RepositoryFiles.localTemplatePath) + "\n"
            + RepositoryFiles.text(RepositoryFiles.rulesPath)
        return UdevRulesEvaluator(file: try UdevRulesFile(text: text))
    }

    @Test("every line of the template follows systemd's rules grammar, its commented-out examples too")
    func templateParses() throws {
        let text = try RepositoryFiles.text(RepositoryFiles.localTemplatePath)
        let file = try UdevRulesFile(text: text)
        #expect(file.rules.count == 5)
        #expect(file.rules.last?.label == "nbgw_local_end")
        // "# KEY..." lines are rules to uncomment: each must parse once uncommented.
        let examples = text.split(separator: "\n").filter { line in
            line.hasPrefix("# ") && line.dropFirst(2).first.map { $0.isUppercase } == true
                && line.contains("==") && line.contains("ENV{ID_NBGW_")
        }
        #expect(examples.count == 2)
        for example in examples {
            do {
                let rules = try UdevRulesFile(text: String(example.dropFirst(2)))
                #expect(rules.rules.count == 1)
            } catch {
                Issue.record("\(example): \(error)")
            }
        }
    }

    @Test("the BC66 board's CP2102 is opted in with its dialect, kept from ModemManager, opened to dialout")
    func bc66BehindCP2102() throws {
        let board = FakeDeviceChain.synthetic(
            vendorID: "10c4",
            productID: "ea60",
            interface: 0,
            driver: "cp210x",
            serial: "BC66-0001"
        )
        let outcome = try Self.evaluator().evaluate(
            chain: board.chain,
            properties: board.properties,
            builtins: board.builtins
        )
        #expect(outcome.properties["ID_NBGW_PROBE"] == "1")
        #expect(outcome.properties["ID_NBGW_DIALECT"] == "quectel-bc66")
        #expect(outcome.properties["ID_MM_DEVICE_IGNORE"] == "1")
        #expect(outcome.group == "dialout" && outcome.mode == "0660")
        #expect(outcome.properties["ID_NBGW_AT_PORT"] == nil && outcome.symlinks.isEmpty)
        let decision = CandidatePolicy.standard.decide(Self.port(properties: outcome.properties, serial: "BC66-0001"))
        #expect(decision.isProbe && decision.dialectHint == "quectel-bc66" && decision.source == .udev("ID_NBGW_PROBE"))

        // Any other CP2102 gets nothing and stays skipped.
        let other = FakeDeviceChain.synthetic(
            vendorID: "10c4",
            productID: "ea60",
            interface: 0,
            driver: "cp210x",
            serial: "0001"
        )
        let untouched = try Self.evaluator().evaluate(
            chain: other.chain,
            properties: other.properties,
            builtins: other.builtins
        )
        #expect(untouched.properties.keys.allSatisfy { !$0.hasPrefix("ID_NBGW_") && $0 != "ID_MM_DEVICE_IGNORE" })
        #expect(untouched.group == nil)
        #expect(
            CandidatePolicy.standard.decide(Self.port(properties: untouched.properties, serial: "0001")).action == .skip
        )
    }

    @Test("the Sonoff Zigbee dongle is tagged ID_NBGW_IGNORE=1 and then ignored even in probe mode")
    func zigbeeIgnored() throws {
        let dongle = FakeDeviceChain.synthetic(
            vendorID: "10c4",
            productID: "ea60",
            interface: 0,
            driver: "cp210x",
            serial: "9a7c2e1f",
            manufacturer: "ITead",
            product: "Sonoff Zigbee 3.0 USB Dongle Plus"
        )
        let outcome = try Self.evaluator().evaluate(
            chain: dongle.chain,
            properties: dongle.properties,
            builtins: dongle.builtins
        )
        #expect(outcome.properties["ID_NBGW_IGNORE"] == "1")
        #expect(outcome.properties["ID_NBGW_PROBE"] == nil && outcome.properties["ID_MM_DEVICE_IGNORE"] == nil)
        let probing = CandidatePolicy.standard(selection: PortSelection(genericBridges: .probe))
        #expect(probing.decide(Self.port(properties: outcome.properties, serial: "9a7c2e1f")).action == .ignored)
    }

    @Test("90-nbgw.rules leaves a known module's port alone when a local rule tagged it ID_NBGW_IGNORE=1")
    func ignoredKnownModule() throws {
        let evaluator = UdevRulesEvaluator(
            file: try UdevRulesFile(text: try RepositoryFiles.text(RepositoryFiles.rulesPath))
        )
        var subject = FakeDeviceChain.synthetic(vendorID: "2c7c", productID: "0700", interface: 2)
        let tagged = try evaluator.evaluate(
            chain: subject.chain,
            properties: subject.properties,
            builtins: subject.builtins
        )
        #expect(tagged.properties["ID_NBGW_AT_PORT"] == "1")
        subject.properties["ID_NBGW_IGNORE"] = "1"
        let left = try evaluator.evaluate(
            chain: subject.chain,
            properties: subject.properties,
            builtins: subject.builtins
        )
        #expect(left.properties == subject.properties, "\(left.properties)")
        #expect(left.symlinks.isEmpty && left.group == nil && left.mode == nil)
        // "0" is not "1": the port is tagged as usual.
        subject.properties["ID_NBGW_IGNORE"] = "0"
        let notIgnored = try evaluator.evaluate(
            chain: subject.chain,
            properties: subject.properties,
            builtins: subject.builtins
        )
        #expect(notIgnored.properties["ID_NBGW_AT_PORT"] == "1")
    }

    @Test(
        "on the testbed's device records the template tags the BC66 board and the Zigbee stick, nothing else",
        arguments: ["bc66board", "zigbee", "cp210x", "bg95"]
    )
    func testbedRecords(kind: String) throws {
        let text = try TestbedHarness.output(["describe", kind, "--no-udev-properties"])
        let evaluator = try Self.evaluator()
        for tty in FakeDeviceChain.records(umockdev: text).filter({ $0.device.subsystem == "tty" }) {
            let subject = try #require(FakeDeviceChain.subject(umockdev: text, syspath: tty.path))
            let outcome = try evaluator.evaluate(
                chain: subject.chain,
                properties: subject.properties,
                builtins: subject.builtins
            )
            let local = outcome.properties.filter {
                ["ID_NBGW_PROBE", "ID_NBGW_IGNORE", "ID_NBGW_DIALECT"].contains($0.key)
            }
            switch kind {
            case "bc66board":
                #expect(local == ["ID_NBGW_PROBE": "1", "ID_NBGW_DIALECT": "quectel-bc66"], "\(tty.path)")
            case "zigbee": #expect(local == ["ID_NBGW_IGNORE": "1"], "\(tty.path)")
            default:
                #expect(outcome.properties["ID_NBGW_PROBE"] == nil && outcome.properties["ID_NBGW_IGNORE"] == nil)
            }
        }
    }

    static func port(properties: [String: String], serial: String) -> UdevPort {
        UdevPort(
            devnode: "/dev/ttyUSB0",
            syspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/ttyUSB0/tty/ttyUSB0",
            driver: "cp210x",
            vendorID: "10c4",
            productID: "ea60",
            interfaceNumber: 0,
            serial: serial,
            properties: properties
        )
    }
}
