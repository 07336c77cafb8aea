import ArgumentParser
import Foundation
import NBGWCore

/// `nbgw`: the operator CLI. Thin: it parses arguments, calls the libraries, renders results.
@main
struct NBGW: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgw",
        abstract: "Operate an NB-IoT / LTE-M modem gateway: registrations, QR pairing labels and bindings.",
        discussion: """
            The store is a SQLite file: --db PATH, else $NBGW_DB, else the daemon's [store] path \
            ($NBGW_CONFIG, else /etc/nbgw/nbgwd.toml), else /var/lib/nbgw/nbgw.sqlite when it exists, else \
            $XDG_STATE_HOME/nbgw/nbgw.sqlite (~/.local/state/nbgw/nbgw.sqlite); `nbgw --where` says which and \
            why. Commands that only read never create a store. Error codes and exit statuses: docs/cli.md.
            """,
        version: NBGWVersion.current,
        subcommands: [
            QR.self, Bind.self, Unbind.self, Token.self, Accounts.self, Homes.self, Bindings.self, Devices.self,
            Modem.self, ModemsCommand.self, ATConsole.self,
            CloudCommand.self, APIKeys.self, IngestCommand.self, Operators.self,
            DiscoveryCommand.self,
            StoreCommand.self,
            LabelsCommand.self, ScanCommand.self,
        ]
    )

    // Only this flag on the root: an option the subcommands also have (--json, --db) would be
    // taken by the root and never reach them.
    @Flag(
        name: .customLong("where"),
        help: "Say which store and control socket the commands use and why, and whether the daemon agrees."
    )
    var whereFlag = false

    func run() async throws {
        guard whereFlag else { throw CleanExit.helpRequest(self) }
        try await Output.run(json: false) {
            try Where.report(store: StoreOptions.parse([]))
        }
    }
}
