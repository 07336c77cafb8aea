/// Where a setting was written: the config file and the line, for the reasons discovery gives
/// (`/etc/nbgw/nbgwd.toml line 31`).
public struct ConfigLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The config file, or nil when the setting came from elsewhere (a flag, a test).
    public var file: String?
    /// The 1-based line in ``file``.
    public var line: Int?

    public init(file: String?, line: Int?) {
        self.file = file
        self.line = line
    }

    /// `/etc/nbgw/nbgwd.toml line 31`, `line 31`, `/etc/nbgw/nbgwd.toml`, or `the config`.
    public var description: String {
        switch (file, line) {
        case (let file?, let line?): "\(file) line \(line)"
        case (nil, let line?): "line \(line)"
        case (let file?, nil): file
        case (nil, nil): "the config"
        }
    }
}
