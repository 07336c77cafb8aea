/// What a candidate decision rests on: a udev property some rule set, a line of the config, or the
/// built-in tables and defaults. `nbgw discovery list` shows it next to each port.
public struct DecisionSource: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where the rule lives.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A udev property on the port (`ID_NBGW_IGNORE=1`, `ID_NBGW_AT_PORT=1`, ModemManager's
        /// `ID_MM_PORT_TYPE_*`), set by a rules file.
        case udev
        /// A line of the daemon's config file.
        case config
        /// nbgw's own tables and defaults (the module table, the bridge table, the fallbacks).
        case builtin
    }

    public var kind: Kind
    /// The rule itself: `ID_NBGW_IGNORE=1`, `[discovery] probe entry "10c4:ea60"`,
    /// `module table: Quectel BG95 / BG77`.
    public var rule: String
    /// The config file, for ``Kind/config``.
    public var file: String?
    /// The line in ``file``, for ``Kind/config``.
    public var line: Int?

    public init(kind: Kind, rule: String, file: String? = nil, line: Int? = nil) {
        self.kind = kind
        self.rule = rule
        self.file = file
        self.line = line
    }

    /// A udev property with value `1`.
    public static func udev(_ property: String) -> DecisionSource {
        DecisionSource(kind: .udev, rule: "\(property)=1")
    }

    /// A config setting written at `location`.
    public static func config(_ rule: String, at location: ConfigLocation) -> DecisionSource {
        DecisionSource(kind: .config, rule: rule, file: location.file, line: location.line)
    }

    /// nbgw's own tables and defaults.
    public static func builtin(_ rule: String) -> DecisionSource {
        DecisionSource(kind: .builtin, rule: rule)
    }

    /// `ID_NBGW_IGNORE=1 (udev rule)`, `[discovery] probe entry "10c4:ea60" (/etc/nbgw/nbgwd.toml line 31)`,
    /// `module table: Quectel BG95 / BG77`.
    public var description: String {
        switch kind {
        case .udev: "\(rule) (udev rule)"
        case .config: "\(rule) (\(ConfigLocation(file: file, line: line)))"
        case .builtin: rule
        }
    }
}
