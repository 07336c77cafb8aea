import Discovery
import Testing

/// The rules and the candidate policy describe the same modules: what the rules tag as AT is exactly what
/// the policy probes, interface by interface, and the tags lead the policy to the same decision.
///
/// The rules file is what `nbgw-gen-udev` generates from `KnownModule.catalogue` (`tools/test.sh` fails
/// while it is stale), so these tests check what the generator writes, through udev's semantics.
@Suite("udev rules agree with the candidate policy")
struct UdevRulesPolicyAgreementTests {
    let policy = CandidatePolicy.standard

    static func evaluator() throws -> UdevRulesEvaluator {
        UdevRulesEvaluator(file: try UdevRulesFile(text: try RepositoryFiles.text(RepositoryFiles.rulesPath)))
    }

    /// Interfaces 0 to 15 cover every map (the highest listed is 5) and the unlisted ones around them.
    static let interfaceRange = 0..<16

    @Test(
        "each interface of each module: AT tag ⇔ probe, the role, the dialect, and the port's treatment",
        arguments: KnownModule.catalogue
    )
    func moduleInterfaces(_ module: KnownModule) throws {
        let evaluator = try Self.evaluator()
        for product in module.productIDs {
            for interface in Self.interfaceRange {
                let subject = FakeDeviceChain.synthetic(
                    vendorID: module.vendorID,
                    productID: product,
                    interface: interface
                )
                let outcome = try evaluator.evaluate(
                    chain: subject.chain,
                    properties: subject.properties,
                    builtins: subject.builtins
                )
                let place = "\(module.vendorID):\(product) if \(interface)"
                let untagged = Self.port(vendor: module.vendorID, product: product, interface: interface)
                let decision = policy.decide(untagged)
                let tags = outcome.properties.filter { $0.key.hasPrefix("ID_NBGW_") || $0.key.hasPrefix("ID_MM_") }

                #expect(
                    (outcome.properties["ID_NBGW_AT_PORT"] == "1") == decision.isProbe,
                    "\(place): \(decision) vs \(tags)"
                )
                #expect(
                    outcome.properties["ID_NBGW_PORT_TYPE"] == module.role(ofInterface: interface)?.rawValue,
                    "\(place)"
                )
                #expect(outcome.properties["ID_NBGW_DIALECT"] == decision.dialectHint, "\(place)")

                var tagged = untagged
                tagged.properties = tags
                let taggedDecision = policy.decide(tagged)
                #expect(taggedDecision.isProbe == decision.isProbe, "\(place): \(taggedDecision)")
                #expect(taggedDecision.dialectHint == decision.dialectHint, "\(place)")

                if let role = module.role(ofInterface: interface) {
                    let number = UdevPortHex.two(interface)
                    #expect(outcome.properties["ID_MM_DEVICE_IGNORE"] == "1", "\(place)")
                    #expect(outcome.group == "dialout" && outcome.mode == "0660", "\(place)")
                    #expect(
                        outcome.symlinks == [
                            "nbgw/by-path/pci-0000:00:14.0-usb-0:1:1.\(interface)-if\(number)-\(role.rawValue)",
                            "nbgw/by-id/\(module.vendorID)-\(product)-0123abcd-if\(number)-\(role.rawValue)",
                        ],
                        "\(place)"
                    )
                } else {
                    #expect(tags.isEmpty && outcome.symlinks.isEmpty && outcome.group == nil, "\(place): \(tags)")
                }
            }
            let device = FakeDeviceChain.usbDevice(vendorID: module.vendorID, productID: product)
            let deviceOutcome = try evaluator.evaluate(chain: device.chain, properties: device.properties)
            #expect(deviceOutcome.properties["ID_MM_DEVICE_IGNORE"] == "1", "\(module.vendorID):\(product) usb_device")
        }
    }

    @Test("bridges and unknown USB devices get no tags, no ModemManager veto and no symlinks")
    func othersUntouched() throws {
        let evaluator = try Self.evaluator()
        let others = [
            ("10c4", "ea60", "cp210x", false), ("1a86", "7523", "ch341", false), ("0403", "6001", "ftdi_sio", false),
            ("1366", "1015", "cdc_acm", true), ("2341", "0043", "cdc_acm", true), ("2c7c", "0801", "option", false),
        ]
        for (vendor, product, driver, acm) in others {
            let subject = FakeDeviceChain.synthetic(
                vendorID: vendor,
                productID: product,
                interface: 0,
                driver: driver,
                acm: acm
            )
            let outcome = try evaluator.evaluate(
                chain: subject.chain,
                properties: subject.properties,
                builtins: subject.builtins
            )
            #expect(
                outcome.properties.keys.allSatisfy { !$0.hasPrefix("ID_NBGW_") && $0 != "ID_MM_DEVICE_IGNORE" },
                "\(vendor):\(product)"
            )
            #expect(outcome.symlinks.isEmpty && outcome.group == nil, "\(vendor):\(product)")
            let device = FakeDeviceChain.usbDevice(vendorID: vendor, productID: product)
            #expect(
                try evaluator.evaluate(chain: device.chain, properties: device.properties).properties[
                    "ID_MM_DEVICE_IGNORE"
                ] == nil
            )
        }
    }

    @Test("a remove event and a non-tty device pass through untouched")
    func removeAndOtherSubsystems() throws {
        let evaluator = try Self.evaluator()
        let subject = FakeDeviceChain.synthetic(vendorID: "2c7c", productID: "0700", interface: 2)
        let removed = try evaluator.evaluate(
            chain: subject.chain,
            properties: subject.properties,
            action: "remove",
            builtins: subject.builtins
        )
        #expect(removed.properties == subject.properties && removed.symlinks.isEmpty)
        var block = subject
        block.chain[0].subsystem = "block"
        let other = try evaluator.evaluate(chain: block.chain, properties: block.properties, builtins: block.builtins)
        #expect(other.properties["ID_NBGW_PORT_TYPE"] == nil)
    }

    @Test(
        "on the testbed's own device records the rules tag the AT port and name it as udevadm did",
        arguments: ["bg95", "thingy91", "cp210x"]
    )
    func testbedRecords(kind: String) throws {
        let text = try TestbedHarness.output(["describe", kind, "--no-udev-properties"])
        let evaluator = try Self.evaluator()
        let ttys = FakeDeviceChain.records(umockdev: text).filter { $0.device.subsystem == "tty" }
        #expect(!ttys.isEmpty)
        for tty in ttys {
            let subject = try #require(FakeDeviceChain.subject(umockdev: text, syspath: tty.path))
            let outcome = try evaluator.evaluate(
                chain: subject.chain,
                properties: subject.properties,
                builtins: subject.builtins
            )
            let interface = try #require(
                subject.chain.first { $0.devtype == "usb_interface" }?.attributes["bInterfaceNumber"]
            )
            let decision = policy.decide(
                Self.port(
                    vendor: subject.chain.first { $0.devtype == "usb_device" }!.attributes["idVendor"]!,
                    product: subject.chain.first { $0.devtype == "usb_device" }!.attributes["idProduct"]!,
                    interface: Int(interface, radix: 16)!
                )
            )
            #expect(
                (outcome.properties["ID_NBGW_AT_PORT"] == "1") == (decision.isProbe && kind != "cp210x"),
                "\(tty.path)"
            )
            if kind == "bg95", interface == "02" {
                // What systemd 252's `udevadm test` printed for this record under umockdev (docs/discovery.md).
                #expect(
                    outcome.properties["DEVLINKS"]
                        == "/dev/nbgw/by-path/pci-0000:00:14.0-usb-0:1:1.2-if02-at"
                        + " /dev/nbgw/by-id/2c7c-0700-0123abcd-if02-at"
                )
                #expect(outcome.properties["ID_NBGW_DIALECT"] == "quectel-bg9x")
                #expect(outcome.imported == ["path_id", "usb_id"])
            }
        }
    }

    static func port(vendor: String, product: String, interface: Int) -> UdevPort {
        UdevPort(
            devnode: "/dev/ttyUSB0",
            syspath: "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.\(interface)/ttyUSB0/tty/ttyUSB0",
            driver: "option",
            vendorID: vendor,
            productID: product,
            interfaceNumber: interface
        )
    }
}
