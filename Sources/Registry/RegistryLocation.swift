/// Where the store lives.
///
/// Two callers, two rules, one answer on a gateway installed as documented:
/// - the daemon (``resolve(explicit:environment:)`` after its own `--db`, `$NBGW_DB` and `[store] path`):
///   `$STATE_DIRECTORY/nbgw.sqlite` under systemd (the unit sets `/var/lib/nbgw` →
///   `/var/lib/nbgw/nbgw.sqlite`),
///   else the per-user XDG default;
/// - the CLI (``locate(explicit:environment:daemonConfig:systemStoreExists:)``): `--db` > `$NBGW_DB` >
///   the daemon's config `[store] path` > ``systemPath`` when it exists > the per-user XDG default.
///
/// docs/cli.md, "The store", says the same for operators.
public enum RegistryLocation {
    /// The store of a gateway installed with the shipped unit (`STATE_DIRECTORY=/var/lib/nbgw`).
    public static let systemPath = "/var/lib/nbgw/nbgw.sqlite"

    /// The daemon's default when nothing names a store: `$STATE_DIRECTORY/nbgw.sqlite` (systemd's
    /// `StateDirectory=`, or the unit's `Environment=`; the first entry when it lists several), else
    /// `--db`/`$NBGW_DB` as given,
    /// else ``userDefault(environment:)``. Libraries never read process state: the caller passes it.
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["NBGW_DB"], !path.isEmpty { return path }
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, state.hasPrefix("/") {
            return state + "/nbgw.sqlite"
        }
        return userDefault(environment: environment)
    }

    /// `$XDG_STATE_HOME/nbgw/nbgw.sqlite`, else `$HOME/.local/state/nbgw/nbgw.sqlite`: a developer's
    /// own store.
    public static func userDefault(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/nbgw/nbgw.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return home + "/.local/state/nbgw/nbgw.sqlite"
    }

    /// What the CLI learnt from the daemon's config file.
    public struct DaemonConfig: Sendable, Equatable {
        /// The file read.
        public var file: String
        /// Its `[store] path`, nil when the file has none.
        public var storePath: String?

        public init(file: String, storePath: String?) {
            self.file = file
            self.storePath = storePath
        }
    }

    /// The CLI's choice: the first rule that applies wins (the type's description lists them).
    ///
    /// - Parameters:
    ///   - explicit: `--db`.
    ///   - daemonConfig: the daemon's config, when a file was found and read (nil: none there).
    ///   - configFile: where the config was looked for (for the explanation when none was found).
    ///   - systemStoreExists: whether ``systemPath`` exists.
    public static func locate(
        explicit: String?,
        environment: [String: String],
        daemonConfig: DaemonConfig?,
        configFile: String,
        systemStoreExists: Bool
    ) -> StoreLocation {
        var passed: [String] = []
        if let explicit, !explicit.isEmpty {
            return StoreLocation(path: explicit, source: .flag, passedOver: passed)
        }
        passed.append("--db: not given")
        if let path = environment["NBGW_DB"], !path.isEmpty {
            return StoreLocation(path: path, source: .environment, passedOver: passed)
        }
        passed.append("$NBGW_DB: not set")
        if let daemonConfig {
            if let path = daemonConfig.storePath {
                return StoreLocation(path: path, source: .daemonConfig(file: daemonConfig.file), passedOver: passed)
            }
            passed.append("\(daemonConfig.file): no [store] path")
        } else {
            passed.append("\(configFile): no such file")
        }
        if systemStoreExists {
            return StoreLocation(path: systemPath, source: .system, passedOver: passed)
        }
        passed.append("\(systemPath): no such file")
        return StoreLocation(path: userDefault(environment: environment), source: .userDefault, passedOver: passed)
    }
}
