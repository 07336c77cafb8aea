import ArgumentParser

/// `describe`: prints the umockdev description of a fake module without building a testbed, so that
/// tests can run other tools (the udev rules checker) over the very records the testbed plugs in.
struct DescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Print a fake module's umockdev device description (parents first)."
    )

    @Argument(help: "The kind: \(FakeModuleKind.all.map(\.id).joined(separator: ", ")).")
    var kind: String

    @Option(help: "Serial number (default: the kind's own, else 0123abcd).")
    var serial: String?

    @Option(help: "Root-hub port (1-…).")
    var usbPort = 1

    @Option(help: "Number of the first ttyUSB/ttyACM node.")
    var firstTTY = 0

    @Flag(name: .customLong("no-udev-properties"), help: "Leave out what udevd's stock rules add.")
    var bare = false

    @Flag(help: "Leave out the xHCI controller and root hub the module hangs under.")
    var moduleOnly = false

    func run() throws {
        guard let kind = FakeModuleKind.named(kind) else {
            throw ValidationError("unknown kind \(kind); use one of \(FakeModuleKind.all.map(\.id))")
        }
        let record = FakeModuleRecord(
            kind: kind,
            usbPort: usbPort,
            serial: serial ?? kind.serial ?? "0123abcd",
            firstTTY: firstTTY,
            stockProperties: !bare
        )
        print((moduleOnly ? "" : FakeModuleRecord.hostControllerText + "\n") + record.text, terminator: "")
    }
}
