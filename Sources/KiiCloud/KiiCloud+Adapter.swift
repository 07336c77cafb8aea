import Cloud
import Logging
import NBGWCore

/// How `--cloud kii+https://…` and `[cloud] mode = "kii"` select and build this cloud.
extension KiiCloud: CloudAdapter {
    public static var mode: String { "kii" }

    /// `kii+https://…`, or `kii+http://` to a loopback host (the emulator; other hosts are
    /// refused with a reason when the cloud is built or checked).
    public static func claims(_ spec: String) -> Bool {
        let lower = spec.lowercased()
        return lower.hasPrefix(urlPrefix + "https://") || lower.hasPrefix(urlPrefix + "http://")
    }

    public static var settingsKeys: [String] { KiiConfiguration.SettingsKey.all }

    /// The owner token. Why not the app key: Kii treats it as an arbitrary value and decides
    /// access by tokens (docs/cloud.md); it is never logged all the same.
    public static var secretKeys: [String] { [KiiConfiguration.SettingsKey.ownerToken] }

    /// Resolves the configuration (URL, app, owner, token, timeouts) without connecting.
    public static func check(_ selection: CloudSelection, environment: [String: String]) throws(NBGWError) {
        _ = try KiiConfiguration.resolve(url: selection.url, settings: selection.settings, environment: environment)
    }

    /// The URL from the selection; app, owner, token and timeouts from the environment
    /// (`NBGW_KII_*`) over the config file's keys.
    public static func make(
        _ selection: CloudSelection,
        environment: [String: String],
        logger: Logger?
    ) throws(NBGWError) -> any CloudService {
        KiiCloud(
            configuration: try KiiConfiguration.resolve(
                url: selection.url,
                settings: selection.settings,
                environment: environment
            ),
            logger: logger
        )
    }
}
