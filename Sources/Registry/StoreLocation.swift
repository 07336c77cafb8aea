/// The store the CLI chose, and why (`nbgw --where`, and the message of `STORE_NOT_FOUND`).
public struct StoreLocation: Sendable, Equatable {
    /// The rule that chose ``path``.
    public enum Source: Sendable, Equatable {
        /// `--db PATH`.
        case flag
        /// `$NBGW_DB`.
        case environment
        /// The daemon's config file's `[store] path`.
        case daemonConfig(file: String)
        /// ``RegistryLocation/systemPath``, which exists.
        case system
        /// The per-user XDG default (development).
        case userDefault
    }

    public var path: String
    public var source: Source
    /// The rules passed over before ``source``, each with why (e.g. "$NBGW_DB: not set").
    public var passedOver: [String]

    public init(path: String, source: Source, passedOver: [String]) {
        self.path = path
        self.source = source
        self.passedOver = passedOver
    }

    /// Whether a command that writes may create a missing store here: only where the operator named
    /// it (`--db`, `$NBGW_DB`) or at the per-user default. The daemon's store is the daemon's to
    /// create, with its owner, group and modes; an operator's command must not make it first.
    public var mayCreate: Bool {
        switch source {
        case .flag, .environment, .userDefault: true
        case .daemonConfig, .system: false
        }
    }

    /// "--db", "$NBGW_DB", "[store] path in /etc/nbgw/nbgwd.toml", …
    public var reason: String {
        switch source {
        case .flag: "--db"
        case .environment: "$NBGW_DB"
        case .daemonConfig(let file): "[store] path in \(file)"
        case .system: "the gateway's store (installed with nbgwd's unit)"
        case .userDefault: "the per-user default (no daemon config, no \(RegistryLocation.systemPath))"
        }
    }

    /// Every place looked at, in order, the chosen one last: for `STORE_NOT_FOUND`.
    public var tried: [String] {
        passedOver + ["\(path) (\(reason)): no such file"]
    }
}
