import ArgumentParser
import Cloud
import Foundation
import Pairing
import Provisioning
import Registry
import TuyaCloud

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

    @Option(
        name: .long,
        help: """
            The cloud: `local` (embedded, the default) or the base URL of an HTTP cloud (default: $NBGW_CLOUD_URL). \
            Credentials come only from the environment (NBGW_CLOUD_CLIENT_ID, NBGW_CLOUD_SECRET); see docs/cloud.md.
            """
    )
    var cloud: String?

    /// The configured cloud URL, or nil for the embedded local cloud.
    var cloudURL: String? {
        let value = cloud ?? ProcessInfo.processInfo.environment["NBGW_CLOUD_URL"]
        guard let value, !value.isEmpty, value != "local" else { return nil }
        return value
    }

    /// Runs `body` with the configured cloud; an HTTP cloud's connections are closed afterwards.
    func withCloud<R>(_ registry: Registry, _ body: (any CloudService) async throws -> R) async throws -> R {
        guard let url = cloudURL else { return try await body(EmbeddedCloud(registry: registry)) }
        let configuration = try CloudConfiguration.resolve(
            baseURL: url,
            environment: ProcessInfo.processInfo.environment
        )
        let cloud = HTTPCloud(configuration: configuration, registry: registry)
        do {
            let result = try await body(cloud)
            await cloud.shutdown()
            return result
        } catch {
            await cloud.shutdown()
            throw error
        }
    }

    /// The HTTP cloud, for commands that only make sense with one (`nbgw cloud …`).
    func withHTTPCloud<R>(_ registry: Registry, _ body: (HTTPCloud) async throws -> R) async throws -> R {
        guard let url = cloudURL else {
            throw NBGWError(
                .invalidArgument,
                "no HTTP cloud configured: pass --cloud URL or set NBGW_CLOUD_URL (the embedded cloud needs no sync)"
            )
        }
        let configuration = try CloudConfiguration.resolve(
            baseURL: url,
            environment: ProcessInfo.processInfo.environment
        )
        let cloud = HTTPCloud(configuration: configuration, registry: registry)
        do {
            let result = try await body(cloud)
            await cloud.shutdown()
            return result
        } catch {
            await cloud.shutdown()
            throw error
        }
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
