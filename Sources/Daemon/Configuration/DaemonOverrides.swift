import Logging

/// What `nbgwd`'s command-line flags set: each non-nil value wins over the environment, the
/// config file and the defaults. Ports are added to the file's `[[ports]]`.
public struct DaemonOverrides: Sendable, Equatable {
    /// `--db PATH`.
    public var storePath: String?
    /// `--cloud local|URL`.
    public var cloud: String?
    /// `--udev` / `--no-udev`.
    public var udev: Bool?
    /// `--port PATH[:BAUD]` (repeatable).
    public var ports: [DaemonConfiguration.StaticPort]
    /// `--metrics-listen HOST:PORT`.
    public var metricsListen: ListenAddress?
    /// `--no-metrics` sets false.
    public var metricsEnabled: Bool?
    /// `--ingest` / `--no-ingest`.
    public var ingestEnabled: Bool?
    /// `--ingest-listen HOST:PORT`.
    public var ingestListen: ListenAddress?
    /// `--grace-period SECONDS`.
    public var gracePeriod: Duration?
    /// `--log-level LEVEL`.
    public var logLevel: Logger.Level?
    /// `--control PATH`: the control socket.
    public var controlSocket: String?

    public init(
        storePath: String? = nil,
        cloud: String? = nil,
        udev: Bool? = nil,
        ports: [DaemonConfiguration.StaticPort] = [],
        metricsListen: ListenAddress? = nil,
        metricsEnabled: Bool? = nil,
        ingestEnabled: Bool? = nil,
        ingestListen: ListenAddress? = nil,
        gracePeriod: Duration? = nil,
        logLevel: Logger.Level? = nil,
        controlSocket: String? = nil
    ) {
        self.storePath = storePath
        self.cloud = cloud
        self.udev = udev
        self.ports = ports
        self.metricsListen = metricsListen
        self.metricsEnabled = metricsEnabled
        self.ingestEnabled = ingestEnabled
        self.ingestListen = ingestListen
        self.gracePeriod = gracePeriod
        self.logLevel = logLevel
        self.controlSocket = controlSocket
    }

    /// True when no flag overrides anything.
    public var isEmpty: Bool { self == DaemonOverrides() }
}
