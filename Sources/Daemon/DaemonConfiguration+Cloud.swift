extension DaemonConfiguration {
    /// `[cloud]`: the embedded local cloud (the default, no network) or a signed HTTP cloud.
    public struct Cloud: Sendable, Equatable {
        /// Which cloud registers modules.
        public enum Mode: String, Sendable, Equatable, CaseIterable {
            /// ``EmbeddedCloud``: registrations and labels in the local store.
            case local
            /// ``HTTPCloud`` at ``Cloud/url`` (docs/cloud.md).
            case http
        }

        public var mode: Mode
        /// The HTTP cloud's base URL (`https://HOST[:PORT]`), when ``mode`` is `http`.
        public var url: String?
        /// The section's other keys (`client_id`, `secret`, `connect_timeout`, `request_timeout`,
        /// `max_attempts`, `label_base`) as text, for ``CloudConfiguration/resolve(baseURL:settings:environment:)``;
        /// the environment's `NBGW_CLOUD_*` take precedence over them.
        public var settings: [String: String]

        public init(mode: Mode = .local, url: String? = nil, settings: [String: String] = [:]) {
            self.mode = mode
            self.url = url
            self.settings = settings
        }

        /// The `[cloud]` keys that are passed through to ``CloudConfiguration`` as `settings`
        /// (its `SettingsKey`s, written here so that reading a config file needs no HTTP client:
        /// Fuzz/'s fuzz-toml builds the reader alone; DaemonConfigurationTests holds them equal).
        static let settingsKeys: [String] = [
            "client_id", secretSettingsKey, "connect_timeout", "request_timeout", "max_attempts", "label_base",
        ]

        /// The settings key of the secret, which is never rendered.
        static let secretSettingsKey = "secret"
    }
}
