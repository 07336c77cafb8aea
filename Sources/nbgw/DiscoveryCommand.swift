import ArgumentParser
import Control
import Daemon
import Discovery
import Foundation

/// `nbgw discovery …`: which serial ports nbgwd takes, and why.
struct DiscoveryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discovery",
        abstract: "Show which serial ports nbgwd probes, skips or ignores, and the rule behind each decision.",
        subcommands: [List.self]
    )
}

extension DiscoveryCommand {
    /// `nbgw discovery list [--json] [--config PATH] [--all]`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List every tty with its USB identity and nbgwd's decision: probe, skip, ignored or static.",
            discussion: """
                The running daemon's own decisions, through its control socket; when no daemon answers (or with \
                --config), they are computed here, from the daemon's config file and udev's view now, with the \
                daemon's own code: --config PATH, else $NBGW_CONFIG, else /etc/nbgw/nbgwd.toml when it exists, \
                else the built-in defaults. docs/discovery.md explains each decision and how to change it \
                (ID_NBGW_PROBE / ID_NBGW_IGNORE in a udev rule, [discovery] probe / ignore / generic_bridges).
                """
        )

        @Option(help: "The daemon's config file (default: $NBGW_CONFIG, else /etc/nbgw/nbgwd.toml when it exists).")
        var config: String?

        @Flag(help: "Print one JSON object.")
        var json = false

        @Flag(help: "Also list the virtual consoles and on-board UARTs nbgwd skips.")
        var all = false

        func run() async throws {
            try await Output.run(json: json) {
                if config == nil, let client = try DaemonControl.connectIfRunning() {
                    let answer: ControlDiscovery = try client.request(
                        ControlRequest(id: client.newID(), op: .discovery)
                    )
                    Self.print(DiscoveryListing.fromDaemon(entries: answer.entries, all: all), json: json)
                    return
                }
                let environment = ProcessInfo.processInfo.environment
                let loaded: (configuration: DaemonConfiguration, file: String?)
                do {
                    loaded = try DaemonConfiguration.readForInspection(explicitPath: config, environment: environment)
                } catch let error as DaemonConfigurationError {
                    throw error.nbgwError
                }
                let listing = DiscoveryListing.computed(
                    configuration: loaded.configuration,
                    file: loaded.file,
                    udevPorts: Result { try UdevDiscovery().enumerate() },
                    all: all
                )
                Self.print(listing, json: json)
            }
        }

        /// The output of a listing, wherever its entries came from.
        static func print(_ listing: DiscoveryListing, json: Bool) {
            if json {
                Output.json(listing)
            } else {
                for line in listing.lines { Output.line(line) }
            }
        }
    }
}
