import ArgumentParser
import Cloud
import Foundation
import Pairing
import Registry
import TuyaCloud

/// `--cloud`, for the commands a cloud takes part in (binds, registrations, label resolution, sync).
struct CloudOptions: ParsableArguments {
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
        guard cloudURL != nil else { return try await body(EmbeddedCloud(registry: registry)) }
        return try await withHTTPCloud(registry) { try await body($0) }
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
