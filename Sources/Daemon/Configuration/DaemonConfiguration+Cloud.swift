import Cloud
import CloudCatalogue
import NBGWCore

extension DaemonConfiguration {
    /// `[cloud]`: which cloud modules are registered with and bindings kept in step with: the
    /// embedded local cloud (the default, no network) or an adapter of ``CloudCatalogue``.
    public struct Cloud: Sendable, Equatable {
        /// An adapter's mode (``CloudCatalogue/modes``): `local`, `http`, …
        public var mode: String
        /// The cloud's URL, for a mode that needs one.
        public var url: String?
        /// The section's adapter keys (for `http`: `client_id`, `secret`, `connect_timeout`,
        /// `request_timeout`, `max_attempts`, `label_base`) as text; the environment's
        /// `NBGW_CLOUD_*` take precedence over them.
        public var settings: [String: String]
        /// How long a bind or unbind waits for a syncing cloud after its local commit before it
        /// answers `cloudSync: queued` (`sync_wait`, seconds).
        public var syncWait: Duration

        public init(
            mode: String = EmbeddedCloud.mode,
            url: String? = nil,
            settings: [String: String] = [:],
            syncWait: Duration = .seconds(2)
        ) {
            self.mode = mode
            self.url = url
            self.settings = settings
            self.syncWait = syncWait
        }

        /// What ``CloudCatalogue/make(_:environment:logger:)`` builds.
        public var selection: CloudSelection {
            CloudSelection(mode: mode, url: url, settings: settings)
        }

        /// True for a cloud that is not the embedded one.
        public var isRemote: Bool { mode != EmbeddedCloud.mode }

        /// Every adapter key any mode reads (the config reader refuses the others).
        static var settingsKeys: [String] {
            var keys: [String] = []
            for adapter in CloudCatalogue.adapters {
                for key in adapter.settingsKeys where !keys.contains(key) { keys.append(key) }
            }
            return keys
        }

        /// The adapter keys that hold secrets, for any mode.
        static var secretKeys: Set<String> {
            Set(CloudCatalogue.adapters.flatMap { $0.secretKeys })
        }

        /// Checks the selection (URL, credentials) without connecting.
        public func check(environment: [String: String]) throws(NBGWError) {
            guard let adapter = CloudCatalogue.adapter(mode: mode) else {
                throw NBGWError(
                    .invalidArgument,
                    "unknown mode \(mode.escapedForDisplay()): use one of "
                        + CloudCatalogue.modes.map { "\"\($0)\"" }.joined(separator: ", ")
                )
            }
            try adapter.check(selection, environment: environment)
        }

        /// `--cloud SPEC` or `$NBGW_CLOUD_URL`: `local`, or a URL an adapter claims.
        mutating func select(_ spec: String) throws(NBGWError) {
            let selection = try CloudCatalogue.selection(spec: spec)
            mode = selection.mode
            url = selection.url
        }
    }
}
