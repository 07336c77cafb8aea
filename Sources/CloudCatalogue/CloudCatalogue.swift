import Cloud
import KiiCloud
import Logging
import NBGWCore
import TuyaCloud

/// Every kind of cloud nbgw can be configured with, and the one way the CLI and the daemon build
/// the configured one. Adding a cloud is an adapter type (``Cloud/CloudAdapter``) and one line in
/// ``adapters``.
public enum CloudCatalogue {
    /// The adapters, in the order a `--cloud SPEC` is offered to them.
    public static let adapters: [any CloudAdapter.Type] = [
        EmbeddedCloud.self,
        HTTPCloud.self,
        KiiCloud.self,
    ]

    /// The `[cloud]` keys every mode reads: `mode`, `url`, `sync_wait`.
    public static let commonKeys = ["mode", "url", "sync_wait"]

    /// Every mode's name (`local`, `http`, …), for messages and the config reader.
    public static var modes: [String] { adapters.map { $0.mode } }

    /// The adapter for a `[cloud] mode`, or nil.
    public static func adapter(mode: String) -> (any CloudAdapter.Type)? {
        adapters.first { $0.mode == mode }
    }

    /// What `--cloud SPEC` (or `$NBGW_CLOUD_URL`) selects: `local`, or a URL an adapter claims.
    ///
    /// - Throws: `INVALID_ARGUMENT` naming the accepted forms when no adapter claims `spec`.
    public static func selection(spec: String) throws(NBGWError) -> CloudSelection {
        guard let adapter = adapters.first(where: { $0.claims(spec) }) else {
            throw NBGWError(
                .invalidArgument,
                "--cloud \(spec.urlForDisplay()) names no known cloud: use `local`, an https:// URL (the "
                    + "Tuya-style HTTP cloud), or see docs/cloud.md for the other kinds"
            )
        }
        return CloudSelection(mode: adapter.mode, url: adapter.mode == EmbeddedCloud.mode ? nil : spec)
    }

    /// The cloud a selection names, built with credentials from `environment` or the selection's
    /// settings (never from arguments).
    public static func make(
        _ selection: CloudSelection,
        environment: [String: String],
        logger: Logger? = nil
    ) throws(NBGWError) -> any CloudService {
        guard let adapter = adapter(mode: selection.mode) else {
            throw NBGWError(
                .invalidArgument,
                "cloud mode \(selection.mode.escapedForDisplay()) is not one of \(modes.joined(separator: ", "))"
            )
        }
        return try adapter.make(selection, environment: environment, logger: logger)
    }

    /// Runs `body` with the selected cloud and shuts it down afterwards, also when `body` throws.
    public static func withCloud<Result>(
        _ selection: CloudSelection,
        environment: [String: String],
        logger: Logger? = nil,
        _ body: (any CloudService) async throws -> Result
    ) async throws -> Result {
        let cloud = try make(selection, environment: environment, logger: logger)
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
