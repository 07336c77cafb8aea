import Cloud
import NBGWCore

extension KiiConfiguration {
    /// Environment variables read by ``resolve(url:settings:environment:)``; each overrides the
    /// config file's key of the same meaning.
    public enum EnvironmentKey {
        public static let appID = "NBGW_KII_APP_ID"
        public static let appKey = "NBGW_KII_APP_KEY"
        public static let owner = "NBGW_KII_OWNER"
        public static let ownerToken = "NBGW_KII_OWNER_TOKEN"
        public static let connectTimeout = "NBGW_KII_CONNECT_TIMEOUT"
        public static let requestTimeout = "NBGW_KII_REQUEST_TIMEOUT"
        public static let maxAttempts = "NBGW_KII_MAX_ATTEMPTS"
        public static let labelBase = "NBGW_KII_LABEL_BASE"
    }

    /// Keys of the config file's `[cloud]` section for `mode = "kii"`.
    public enum SettingsKey {
        public static let appID = "app_id"
        public static let appKey = "app_key"
        public static let owner = "owner"
        public static let ownerToken = "owner_token"
        public static let connectTimeout = "connect_timeout"
        public static let requestTimeout = "request_timeout"
        public static let maxAttempts = "max_attempts"
        public static let labelBase = "label_base"

        public static let all = [
            appID, appKey, owner, ownerToken, connectTimeout, requestTimeout, maxAttempts, labelBase,
        ]
    }

    /// Builds a configuration from the URL (`--cloud kii+https://…`, `[cloud] url`), then for each
    /// setting the environment (`NBGW_KII_*`) over the config file's key. Credentials are never
    /// taken from arguments. Timeouts are seconds (decimals allowed).
    ///
    /// - Parameters:
    ///   - url: the selection's URL; its path may name the app id.
    ///   - settings: the config file's `[cloud]` keys (``SettingsKey``), as text.
    ///   - environment: the process environment, passed in by the caller (libraries do not read it).
    public static func resolve(
        url: String?,
        settings: [String: String] = [:],
        environment: [String: String]
    ) throws(NBGWError) -> KiiConfiguration {
        func value(_ env: String, _ setting: String) -> String? {
            if let text = environment[env], !text.isEmpty { return text }
            if let text = settings[setting], !text.isEmpty { return text }
            return nil
        }
        guard let url, !url.isEmpty else {
            throw NBGWError(
                .invalidArgument,
                "no Kii URL: pass --cloud kii+https://HOST/APP_ID, or set `url` in the config file's [cloud] section"
            )
        }
        let (_, pathAppID) = try parseSite(url)
        guard let appID = value(EnvironmentKey.appID, SettingsKey.appID) ?? pathAppID else {
            throw NBGWError(
                .invalidArgument,
                "no Kii app id for \(url.urlForDisplay()): end the URL with /APP_ID, or set "
                    + "\(EnvironmentKey.appID) or `app_id`"
            )
        }
        guard let ownerText = value(EnvironmentKey.owner, SettingsKey.owner),
            let ownerToken = value(EnvironmentKey.ownerToken, SettingsKey.ownerToken)
        else {
            throw NBGWError(
                .invalidArgument,
                "no Kii owner for \(url.urlForDisplay()): set \(EnvironmentKey.owner) (USER:<id> or GROUP:<id>) "
                    + "and \(EnvironmentKey.ownerToken) in the environment, or `owner` and `owner_token` in the "
                    + "config file (mode 0600); the token is never accepted on the command line"
            )
        }
        let ownerName = environment[EnvironmentKey.owner].map { _ in EnvironmentKey.owner } ?? "`owner`"
        var configuration = try KiiConfiguration(
            site: url,
            appID: appID,
            appKey: value(EnvironmentKey.appKey, SettingsKey.appKey),
            owner: try KiiOwner(parsing: ownerText, name: ownerName),
            ownerToken: ownerToken
        )
        if let text = value(EnvironmentKey.connectTimeout, SettingsKey.connectTimeout) {
            configuration.connectTimeout = try seconds(text, name: EnvironmentKey.connectTimeout)
        }
        if let text = value(EnvironmentKey.requestTimeout, SettingsKey.requestTimeout) {
            configuration.requestTimeout = try seconds(text, name: EnvironmentKey.requestTimeout)
        }
        if let text = value(EnvironmentKey.maxAttempts, SettingsKey.maxAttempts) {
            guard let attempts = Int(text), (1...20).contains(attempts) else {
                throw NBGWError(
                    .invalidArgument,
                    "\(EnvironmentKey.maxAttempts) / `max_attempts` \(text.escapedForDisplay()) must be a whole "
                        + "number from 1 to 20"
                )
            }
            configuration.retryPolicy.maxAttempts = attempts
        }
        if let text = value(EnvironmentKey.labelBase, SettingsKey.labelBase) {
            guard text.lowercased().hasPrefix("https://") || text.lowercased().hasPrefix("http://") else {
                throw NBGWError(
                    .invalidArgument,
                    "\(EnvironmentKey.labelBase) / `label_base` \(text.urlForDisplay()) must be an http(s) URL "
                        + "prefix such as https://label.example.com/t/"
                )
            }
            configuration.labelBase = text.hasSuffix("/") ? text : text + "/"
        }
        return configuration
    }

    static func seconds(_ text: String, name: String) throws(NBGWError) -> Duration {
        guard let value = Double(text), value.isFinite, value > 0, value <= 600 else {
            throw NBGWError(
                .invalidArgument,
                "\(name) \(text.escapedForDisplay()) must be a number of seconds between 0 and 600"
            )
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}
