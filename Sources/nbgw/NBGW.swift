import ArgumentParser
import Pairing

/// `nbgw`: the operator CLI. Thin: it parses arguments, calls the libraries, renders results.
@main
struct NBGW: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgw",
        abstract: "Operate an NB-IoT / LTE-M modem gateway: registrations, QR pairing labels and bindings.",
        discussion: """
            The store is a SQLite file: --db PATH, else $NBGW_DB, else \
            $XDG_STATE_HOME/nbgw/nbgw.sqlite (~/.local/state/nbgw/nbgw.sqlite). \
            Error codes and exit statuses: docs/cli.md.
            """,
        version: NBGWVersion.current,
        subcommands: [
            QR.self, Bind.self, Unbind.self, Token.self, Accounts.self, Homes.self, Bindings.self, Devices.self,
            Modem.self, ModemsCommand.self, ATConsole.self,
            CloudCommand.self, APIKeys.self, IngestCommand.self,
            StoreCommand.self,
        ]
    )
}
