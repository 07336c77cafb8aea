import NBGWCore

extension CloudConfiguration {
    /// Environment variables read by ``resolve(baseURL:settings:environment:)``.
    public enum EnvironmentKey {
        public static let url = "NBGW_CLOUD_URL"
        public static let clientID = "NBGW_CLOUD_CLIENT_ID"
        public static let secret = "NBGW_CLOUD_SECRET"
        public static let connectTimeout = "NBGW_CLOUD_CONNECT_TIMEOUT"
        public static let requestTimeout = "NBGW_CLOUD_REQUEST_TIMEOUT"
        public static let maxAttempts = "NBGW_CLOUD_MAX_ATTEMPTS"
        public static let labelBase = "NBGW_CLOUD_LABEL_BASE"
        public static let caFile = "NBGW_CLOUD_CA_FILE"
        public static let batch = "NBGW_CLOUD_BATCH"
    }

    /// Keys of the config file's cloud section, as the caller parsed them into `settings`.
    public enum SettingsKey {
        public static let url = "url"
        public static let clientID = "client_id"
        public static let secret = "secret"
        public static let connectTimeout = "connect_timeout"
        public static let requestTimeout = "request_timeout"
        public static let maxAttempts = "max_attempts"
        public static let labelBase = "label_base"
        public static let caFile = "ca_file"
        public static let batch = "batch"
    }

    /// Builds a configuration from (highest precedence first) an explicit URL (`--cloud URL`), the
    /// environment, then the config file's cloud section. Credentials come only from the
    /// environment or the file, never from arguments. Timeouts are seconds (decimals allowed).
    ///
    /// - Parameters:
    ///   - baseURL: the URL given on the command line, if any.
    ///   - settings: the config file's cloud section (``SettingsKey``), as strings.
    ///   - environment: the process environment, passed in by the caller (libraries do not read it).
    public static func resolve(
        baseURL: String? = nil,
        settings: [String: String] = [:],
        environment: [String: String]
    ) throws(NBGWError) -> CloudConfiguration {
        func value(_ env: String, _ setting: String) -> String? {
            if let text = environment[env], !text.isEmpty { return text }
            if let text = settings[setting], !text.isEmpty { return text }
            return nil
        }
        guard let url = baseURL ?? value(EnvironmentKey.url, SettingsKey.url) else {
            throw NBGWError(
                .invalidArgument,
                "no cloud URL: pass --cloud URL, set \(EnvironmentKey.url), or set `url` in the config file's cloud "
                    + "section"
            )
        }
        guard let clientID = value(EnvironmentKey.clientID, SettingsKey.clientID),
            let secret = value(EnvironmentKey.secret, SettingsKey.secret)
        else {
            throw NBGWError(
                .invalidArgument,
                "no cloud credentials for \(url.urlForDisplay()): set \(EnvironmentKey.clientID) and "
                    + "\(EnvironmentKey.secret) in the environment, or `client_id` and `secret` in the config file "
                    + "(mode 0600); they are never accepted on the command line"
            )
        }
        var configuration = try CloudConfiguration(
            baseURL: url,
            credentials: try CloudCredentials(clientID: clientID, secret: secret)
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
                    "\(EnvironmentKey.maxAttempts) \(text.escapedForDisplay()) must be a whole number from 1 to 20"
                )
            }
            configuration.retryPolicy.maxAttempts = attempts
        }
        if let text = value(EnvironmentKey.labelBase, SettingsKey.labelBase) {
            configuration.labelBase = text.hasSuffix("/") ? text : text + "/"
        }
        if let text = value(EnvironmentKey.batch, SettingsKey.batch) {
            switch text.lowercased() {
            case "1", "true", "yes", "on": configuration.useBatches = true
            case "0", "false", "no", "off": configuration.useBatches = false
            default:
                throw NBGWError(
                    .invalidArgument,
                    "\(EnvironmentKey.batch) / batch \(text.escapedForDisplay()) must be true or false"
                )
            }
        }
        if let path = value(EnvironmentKey.caFile, SettingsKey.caFile) {
            configuration.trustedAuthorities = try CloudTrustedAuthorities.load(path)
        }
        return configuration
    }

    /// ``resolve(baseURL:settings:environment:)`` without a config file.
    public static func fromEnvironment(
        _ environment: [String: String],
        baseURL: String? = nil
    ) throws(NBGWError) -> CloudConfiguration {
        try resolve(baseURL: baseURL, settings: [:], environment: environment)
    }

    static func seconds(_ text: String, name: String) throws(NBGWError) -> Duration {
        guard let value = Double(text), value > 0, value <= 600 else {
            throw NBGWError(
                .invalidArgument,
                "\(name) \(text.escapedForDisplay()) must be a number of seconds between 0 and 600"
            )
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}
