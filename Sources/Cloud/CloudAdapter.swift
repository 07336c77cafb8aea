import Logging
import NBGWCore

/// A kind of cloud nbgw can be configured with (`--cloud SPEC`, `[cloud] mode`): how to recognise
/// it and how to build it. The catalogue of kinds is `CloudCatalogue` (one line per adapter).
public protocol CloudAdapter {
    /// The `[cloud] mode` value that selects it (`local`, `http`, `kii`).
    static var mode: String { get }

    /// Whether a `--cloud SPEC` names this kind (`local`, `https://…`, `kii+https://…`).
    static func claims(_ spec: String) -> Bool

    /// The `[cloud]` keys it reads besides `mode`, `url` and `sync_wait` (the config reader refuses
    /// them for any other mode). The environment overrides each (docs/cloud.md).
    static var settingsKeys: [String] { get }

    /// Which of ``settingsKeys`` hold secrets: never shown (`--check-config` says "set"), and a
    /// config file holding one must be readable by its owner only.
    static var secretKeys: [String] { get }

    /// Checks a selection without building anything or connecting (`nbgwd --check-config`): the
    /// URL's form, the credentials' presence and form, the settings' values.
    static func check(_ selection: CloudSelection, environment: [String: String]) throws(NBGWError)

    /// Builds the cloud. Credentials come from `environment` or the config file's settings, never
    /// from arguments; a missing or malformed one is `INVALID_ARGUMENT` naming the variable and key.
    ///
    /// - Parameter logger: where requests, retries and failures are logged (never secrets); nil
    ///   logs nothing.
    static func make(
        _ selection: CloudSelection,
        environment: [String: String],
        logger: Logger?
    ) throws(NBGWError) -> any CloudService
}
