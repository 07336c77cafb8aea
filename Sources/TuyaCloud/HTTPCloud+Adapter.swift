import Cloud
import Logging
import NBGWCore

/// How `--cloud https://…` and `[cloud] mode = "http"` select and build this cloud.
extension HTTPCloud: CloudAdapter {
    public static var mode: String { "http" }

    /// A plain `http://` or `https://` base URL.
    public static func claims(_ spec: String) -> Bool {
        let lower = spec.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://")
    }

    public static var settingsKeys: [String] {
        [
            CloudConfiguration.SettingsKey.clientID, CloudConfiguration.SettingsKey.secret,
            CloudConfiguration.SettingsKey.connectTimeout, CloudConfiguration.SettingsKey.requestTimeout,
            CloudConfiguration.SettingsKey.maxAttempts, CloudConfiguration.SettingsKey.labelBase,
            CloudConfiguration.SettingsKey.caFile, CloudConfiguration.SettingsKey.batch,
        ]
    }

    public static var secretKeys: [String] { [CloudConfiguration.SettingsKey.secret] }

    /// Resolves the configuration (URL, credentials, timeouts) without building a client.
    public static func check(_ selection: CloudSelection, environment: [String: String]) throws(NBGWError) {
        _ = try CloudConfiguration.resolve(
            baseURL: selection.url,
            settings: selection.settings,
            environment: environment
        )
    }

    /// The URL from the selection (else `NBGW_CLOUD_URL`), credentials and timeouts from the
    /// environment (`NBGW_CLOUD_*`) over the config file's keys (docs/cloud.md).
    public static func make(
        _ selection: CloudSelection,
        environment: [String: String],
        logger: Logger?
    ) throws(NBGWError) -> any CloudService {
        let configuration = try CloudConfiguration.resolve(
            baseURL: selection.url,
            settings: selection.settings,
            environment: environment
        )
        return HTTPCloud(configuration: configuration, logger: logger)
    }
}
