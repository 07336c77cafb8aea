import ArgumentParser

/// `nbgw-udev-testbed`: fake USB modems for udev discovery tests, under `umockdev-wrapper`.
///
/// `serve` builds a umockdev testbed with fake modules whose AT ttys are played by ModemSimulatorKit,
/// and optionally runs a child (the daemon, or one of the client subcommands below) that inherits the
/// testbed's environment. `list`, `watch` and `at` are such clients: they run the Discovery library
/// and the AT exchange in a process that sees the fake devices.
@main
struct TestbedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgw-udev-testbed",
        abstract: "Fake USB modems (umockdev) whose AT ports are simulated modules, for udev discovery tests.",
        discussion: """
            Run under umockdev's preload: umockdev-wrapper nbgw-udev-testbed serve --add bg95:m1 -- nbgwd ...
            Every line on stdout is one JSON object. Kinds: \(FakeModuleKind.all.map(\.id).joined(separator: ", ")).
            """,
        subcommands: [
            ServeCommand.self, ListCommand.self, WatchCommand.self, SendATCommand.self, DescribeCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}
