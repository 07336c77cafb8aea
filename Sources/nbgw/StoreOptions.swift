import ArgumentParser
import Cloud
import Foundation
import Provisioning
import Registry

/// Options every store-touching command takes.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite store (default: $NBGW_DB, else ~/.local/state/nbgw/nbgw.sqlite).")
    var db: String?

    @Flag(name: .long, help: "Print one JSON object (errors too: {\"error\":{\"code\",\"message\"}}).")
    var json = false

    var path: String {
        RegistryLocation.resolve(explicit: db, environment: ProcessInfo.processInfo.environment)
    }

    func openRegistry() throws -> Registry {
        try Registry(path: path)
    }

    func cloud(_ registry: Registry) -> EmbeddedCloud {
        EmbeddedCloud(registry: registry)
    }
}

/// Who ran the command, recorded on bindings and in the audit log.
struct OperatorOption: ParsableArguments {
    @Option(name: .customLong("operator"), help: "Operator name for the audit log (default: $USER).")
    var name: String?

    var resolved: String? {
        name ?? ProcessInfo.processInfo.environment["USER"]
    }
}
