/// Which cloud to use and its settings, as the CLI (`--cloud SPEC`, `$NBGW_CLOUD_URL`) or the
/// daemon's `[cloud]` section gave them; `CloudCatalogue` builds the cloud from it.
public struct CloudSelection: Sendable, Equatable {
    /// The adapter's ``CloudAdapter/mode`` (`local`, `http`, `kii`).
    public var mode: String
    /// The URL as written (with its `kii+` prefix, if any), when the mode needs one.
    public var url: String?
    /// The config file's `[cloud]` keys other than `mode` and `url`, as text.
    public var settings: [String: String]

    public init(mode: String, url: String? = nil, settings: [String: String] = [:]) {
        self.mode = mode
        self.url = url
        self.settings = settings
    }

    /// The embedded local cloud.
    public static let local = CloudSelection(mode: EmbeddedCloud.mode)
}
