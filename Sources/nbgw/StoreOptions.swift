import ArgumentParser
import Foundation
import NBGWCore
import Registry

/// Options every store-touching command takes, and where the store is (docs/cli.md, "The store"):
/// `--db` > `$NBGW_DB` > the daemon's config `[store] path` > `/var/lib/nbgw/nbgw.sqlite` when it
/// exists > the per-user XDG default.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            The SQLite store (default: $NBGW_DB, else the daemon's [store] path, else /var/lib/nbgw/nbgw.sqlite \
            when it exists, else ~/.local/state/nbgw/nbgw.sqlite; `nbgw --where` says which and why).
            """
    )
    var db: String?

    @Flag(name: .long, help: "Print one JSON object (errors too: {\"error\":{\"code\",\"message\"}}).")
    var json = false

    /// The store and why.
    func location() throws(NBGWError) -> StoreLocation {
        let environment = ProcessInfo.processInfo.environment
        // --db and $NBGW_DB decide without the daemon's config: no need to read (or be allowed to read) it.
        if db?.isEmpty == false || environment["NBGW_DB"]?.isEmpty == false {
            return RegistryLocation.locate(
                explicit: db,
                environment: environment,
                daemonConfig: nil,
                configFile: "",
                systemStoreExists: false
            )
        }
        return try DaemonSettings.read(environment: environment).storeLocation(explicit: db, environment: environment)
    }

    /// The store's path, for messages.
    var path: String {
        (try? location().path) ?? db ?? "the store"
    }

    /// For commands that write: a missing store is created only where `--db`, `$NBGW_DB` or the
    /// per-user default put it; the daemon's store is the daemon's to create.
    func openRegistry() throws -> Registry {
        let location = try location()
        if location.mayCreate { return try Registry(path: location.path) }
        return try open(location)
    }

    /// For commands that only read: never creates a store; a missing one is `STORE_NOT_FOUND` naming
    /// every place tried.
    func openExistingRegistry() throws -> Registry {
        try open(try location())
    }

    private func open(_ location: StoreLocation) throws -> Registry {
        guard
            FileManager.default.fileExists(atPath: location.path) || Registry.accessProblem(path: location.path) != nil
        else {
            throw NBGWError(
                .storeNotFound,
                "no store found; looked at: " + location.tried.joined(separator: "; ")
                    + ". Start the daemon (it creates its store), or pass --db PATH"
            )
        }
        return try Registry(path: location.path, access: .existing)
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
