import ArgumentParser
import Foundation
import Gateway
import NBGWCore
import Registry

/// `nbgw modem …`: talk to cellular modules directly (diagnostics; the daemon does the same
/// through the same library code), and show what the daemon knows about one.
struct Modem: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modem",
        abstract: "Probe NB-IoT / LTE-M modules on serial ports; show, reset, re-probe, release or resume one modem.",
        subcommands: [
            ModemProbeCommand.self, Show.self, Reset.self, Reprobe.self, Release.self, Resume.self,
            ModemProbeManyCommand.self,
        ]
    )
}

extension Modem {
    /// `nbgw modem show IMEI|PORT`: everything the modem table holds about one modem, read from
    /// the store, so it works while the daemon runs.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one modem the daemon supervises (by IMEI or port): state, identity, registration, "
                + "signal, last error and what to do.",
            discussion: """
                Reads the modem table of the store (--db); the daemon writes it on every state change. \
                Exit 20 (UNKNOWN_DEVICE) when no modem has that IMEI or port.
                """
        )

        @OptionGroup var store: StoreOptions

        @Argument(help: "The modem's IMEI, or its port (e.g. /dev/ttyUSB2).")
        var modem: String

        struct Report: Encodable {
            var modem: ModemRecord
            /// What to do about the state or the last error.
            var advice: String?
        }

        func run() async throws {
            try await Output.run(json: store.json) {
                let registry = try store.openExistingRegistry()
                guard let record = try registry.modems.find(imeiOrPort: modem) else {
                    throw NBGWError(
                        .unknownDevice,
                        "no modem with IMEI or port \(modem.escapedForDisplay()) in \(store.path); "
                            + "list them with `nbgw modems`"
                    )
                }
                let advice = ModemsCommand.advice(for: record)
                if store.json {
                    Output.json(Report(modem: record, advice: advice))
                } else {
                    for line in ModemsCommand.details(record, advice: advice) { Output.line(line) }
                }
            }
        }
    }
}
