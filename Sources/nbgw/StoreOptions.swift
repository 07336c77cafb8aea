import ArgumentParser
import Daemon
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

    /// The secrets key this user may use for the modules' credentials (``SecretsKeySource``):
    /// `$NBGW_SECRETS_KEY` (an error when it cannot be loaded), else the daemon's `[store]
    /// secrets_key` or the packaged key when this user may read them (root), else none, which is
    /// what an operator has: commands that need a credential leave that work to the daemon.
    func secretsKey() throws(NBGWError) -> SecretsKeyAccess {
        let environment = ProcessInfo.processInfo.environment
        let explicit = environment[SecretsKeySource.environmentKey].flatMap { $0.isEmpty ? nil : $0 }
        let configured = (try? DaemonSettings.read(environment: environment))?.configuration?.store.secretsKey
        do {
            return try SecretsKeySource.resolve(
                explicit: explicit,
                daemonConfigured: configured,
                environment: environment
            )
        } catch {
            // A key named for this command must load; one found elsewhere only says why not.
            if explicit != nil { throw error }
            return .unavailable(error.message)
        }
    }

    /// For commands that write: a missing store is created only where `--db`, `$NBGW_DB` or the
    /// per-user default put it; the daemon's store is the daemon's to create.
    func openRegistry() throws -> Registry {
        let location = try location()
        if location.mayCreate { return try Registry(path: location.path, secretsKey: try secretsKey()) }
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
        return try Registry(path: location.path, access: .existing, secretsKey: try secretsKey())
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
