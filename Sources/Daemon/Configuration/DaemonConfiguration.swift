import Discovery
import Logging

/// Everything `nbgwd` is told: the effective configuration after the built-in defaults, the TOML
/// file, the environment and the command-line flags (in rising precedence), validated.
///
/// Build it with ``load(explicitPath:defaultPath:environment:overrides:)``, or parse a file's
/// text with ``parse(toml:file:)``. docs/operations.md ("Configuration") lists every key;
/// examples/nbgwd.toml shows the defaults.
public struct DaemonConfiguration: Sendable, Equatable {
    /// Where the config file is looked for when `--config` is not given. When it does not exist
    /// the daemon runs on its built-in defaults.
    public static let defaultPath = "/etc/nbgw/nbgwd.toml"

    /// `[store]`: the SQLite file and the operators' group.
    public var store: Store
    /// `[control]`: the control socket operators' commands reach the daemon through.
    public var control: Control
    /// `[[sim]]`: SIM PINs the daemon may enter (the file must be readable by its owner only).
    public var sims: [SIM]
    /// `[cloud]`: where modules are registered and bindings sent.
    public var cloud: Cloud
    /// `[modem]`: what every module is set to, and the supervisors' timing.
    public var modem: Modem
    /// `[discovery]`: whether libudev finds ports, and which of them nbgwd may open.
    public var discovery: Discovery
    /// `[[ports]]`: static ports (on-board UARTs, simulator ptys), probed at start.
    public var ports: [StaticPort]
    /// `[metrics]`: the Prometheus `/metrics` and `/healthz` HTTP listener.
    public var metrics: Metrics
    /// `[ingest]`: the QR ingest HTTP API (docs/ingest.md).
    public var ingest: Ingest
    /// `[shutdown]`: how long a graceful stop may take.
    public var shutdown: Shutdown
    /// `[log]`: the log level (journald collects stderr).
    public var log: Log
    /// `[hooks]`: executables run on every modem state change.
    public var hooks: Hooks = Hooks()
    /// `[labels]`: a label file per module the daemon registers.
    public var labels: LabelFiles = LabelFiles()
    /// `[console]`: the web console's CSV batches (limits, retention, quota).
    public var console: ConsoleSettings = ConsoleSettings()

    /// The built-in defaults (examples/nbgwd.toml spells them out).
    public init(
        store: Store = Store(),
        control: Control = Control(),
        sims: [SIM] = [],
        cloud: Cloud = Cloud(),
        modem: Modem = Modem(),
        discovery: Discovery = Discovery(),
        ports: [StaticPort] = [],
        metrics: Metrics = Metrics(),
        ingest: Ingest = Ingest(),
        shutdown: Shutdown = Shutdown(),
        log: Log = Log()
    ) {
        self.store = store
        self.control = control
        self.sims = sims
        self.cloud = cloud
        self.modem = modem
        self.discovery = discovery
        self.ports = ports
        self.metrics = metrics
        self.ingest = ingest
        self.shutdown = shutdown
        self.log = log
    }
}

extension DaemonConfiguration {
    /// `[store]`.
    public struct Store: Sendable, Equatable {
        /// The operators' group when the config names none.
        public static let defaultGroup = "nbgw"

        /// The SQLite file; nil: `$NBGW_DB`, else `$STATE_DIRECTORY/nbgw.sqlite` (the unit's
        /// `STATE_DIRECTORY=/var/lib/nbgw`: `/var/lib/nbgw/nbgw.sqlite`), else the per-user XDG default.
        public var path: String?
        /// The group that shares the store's files (mode 0660, directory 2770) and the control socket
        /// with the daemon: its members run `nbgw` without sudo. nil: ``defaultGroup``, or owner-only
        /// files when no group of that name exists (a developer's machine). A name or a number.
        public var group: String?
        /// `secrets_key`: the file holding the key the modules' credentials are sealed under
        /// (readable by the daemon's user only); nil: the key systemd hands the daemon
        /// (`$CREDENTIALS_DIRECTORY/secrets.key`, `LoadCredential=`), else
        /// `/etc/nbgw/credentials/secrets.key` when this process may read it (``SecretsKeySource``).
        public var secretsKey: String?

        public init(path: String? = nil, group: String? = nil, secretsKey: String? = nil) {
            self.path = path
            self.group = group
            self.secretsKey = secretsKey
        }
    }

    /// `[control]`.
    public struct Control: Sendable, Equatable {
        /// Serve the control socket (`nbgw at`, `nbgw modem reset|reprobe|release|resume`,
        /// `nbgw modems --watch`).
        public var enabled: Bool
        /// The socket; nil: `/run/nbgw/control.sock` (`/run/nbgw` from the package's tmpfiles.d).
        public var socket: String?

        public init(enabled: Bool = true, socket: String? = nil) {
            self.enabled = enabled
            self.socket = socket
        }
    }

    /// One `[[sim]]` entry: the PIN of the SIM with `iccid`, or of the SIM in the module `imei`.
    public struct SIM: Sendable, Equatable, CustomStringConvertible {
        public var iccid: String?
        public var imei: String?
        public var pin: String

        public init(iccid: String? = nil, imei: String? = nil, pin: String) {
            self.iccid = iccid
            self.imei = imei
            self.pin = pin
        }

        /// Never shows the PIN.
        public var description: String { "SIM " + (iccid.map { "ICCID \($0)" } ?? imei.map { "IMEI \($0)" } ?? "?") }
    }

    /// `[discovery]` (docs/discovery.md, "Generic bridges"; matchers in "Matchers").
    public struct Discovery: Sendable, Equatable {
        /// Enumerate `tty` ports through libudev and follow hot-plug; false: only `[[ports]]`.
        public var udev: Bool
        /// `generic_bridges`: what to do with USB-UART bridges nobody opted in; `tagged` by default.
        public var genericBridges: GenericBridgeMode
        /// `probe`: port matchers (``PortMatcher``) to probe although the tables would not.
        public var probe: [String]
        /// `ignore`: port matchers nbgwd never opens, whatever else says (`[[ports]]` included).
        public var ignore: [String]
        /// Where each setting was written, for the decisions' reasons. Not part of the value: two
        /// configurations with the same settings are equal wherever they were written.
        public var locations: Locations

        public init(
            udev: Bool = true,
            genericBridges: GenericBridgeMode = .tagged,
            probe: [String] = [],
            ignore: [String] = [],
            locations: Locations = Locations()
        ) {
            self.udev = udev
            self.genericBridges = genericBridges
            self.probe = probe
            self.ignore = ignore
            self.locations = locations
        }

        public static func == (left: Discovery, right: Discovery) -> Bool {
            left.udev == right.udev && left.genericBridges == right.genericBridges && left.probe == right.probe
                && left.ignore == right.ignore
        }
    }

    /// One `[[ports]]` entry.
    public struct StaticPort: Sendable, Hashable {
        /// The device node, e.g. `/dev/ttyAMA0` or a simulator's `/dev/pts/7`.
        public var path: String
        /// The speed to try first; nil uses the probe's order (115200, 9600, …).
        public var baud: Int?

        public init(path: String, baud: Int? = nil) {
            self.path = path
            self.baud = baud
        }
    }

    /// `[metrics]`.
    public struct Metrics: Sendable, Equatable {
        public var enabled: Bool
        /// Loopback by default: the endpoint has no authentication. 9464 is the port the
        /// OpenTelemetry Prometheus exporter convention uses.
        public var listen: ListenAddress
        /// `allow_remote`: let ``listen`` be an address other hosts reach. Off by default, because
        /// `/metrics` and `/healthz` name every module (IMEI, port, model, firmware, last error) to
        /// anyone who asks; with it on, nbgwd logs a warning at every start.
        public var allowRemote: Bool

        public init(
            enabled: Bool = true,
            listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 9464),
            allowRemote: Bool = false
        ) {
            self.enabled = enabled
            self.listen = listen
            self.allowRemote = allowRemote
        }

        /// Serves on an address other hosts reach (the operator opted in with ``allowRemote``).
        public var isExposed: Bool { enabled && !listen.isLoopback }
    }

    /// `[ingest]` (issue 7's HTTP API, run inside the daemon when enabled).
    public struct Ingest: Sendable, Equatable {
        public var enabled: Bool
        /// Loopback by default: without ``tlsCertificate`` and ``tlsKey`` the API speaks plain HTTP.
        public var listen: ListenAddress
        /// Requests per second per API key; 0 disables the limit.
        public var rateLimit: Double
        /// Requests one key may send at once; nil is twice the rate.
        public var burst: Int?
        /// The largest request body in bytes. Why 16 KiB: one QR payload (≤ 4096 bytes) plus names.
        public var maxBodyBytes: Int
        /// The activation budget of one bind over HTTP. Why 10 s: HTTP clients give up long before
        /// the seed's 120 s.
        public var bindTimeout: Duration
        /// Allow a non-loopback `listen` without TLS (behind a TLS-terminating proxy on another host).
        public var insecureExpose: Bool
        /// The certificate chain (PEM, absolute path) to serve HTTPS with; set together with
        /// ``tlsKey``. With both, a non-loopback `listen` needs no ``insecureExpose``.
        public var tlsCertificate: String?
        /// The certificate's private key (PEM, unencrypted, absolute path, not readable by other users).
        public var tlsKey: String?
        /// `max_connections`: connections open at once on the listener (docs/operations.md, "Hostile
        /// load"); the daemon lowers it to half its descriptor limit at start.
        public var maxConnections = 512
        /// `max_connections_per_client`: connections one client address may hold.
        public var maxConnectionsPerClient = 64
        /// `idle_timeout`: a connection without a request in flight (or whose head does not arrive)
        /// closes after this.
        public var idleTimeout: Duration = .seconds(20)
        /// `public_origin`: the origin browsers use when a TLS proxy is in front (docs/console.md).
        public var publicOrigin: String?
        /// `trusted_proxies`: addresses whose `X-Forwarded-For` is believed.
        public var trustedProxies: [String] = []

        public init(
            enabled: Bool = false,
            listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080),
            rateLimit: Double = 50,
            burst: Int? = nil,
            maxBodyBytes: Int = 16 * 1024,
            bindTimeout: Duration = .seconds(10),
            insecureExpose: Bool = false,
            tlsCertificate: String? = nil,
            tlsKey: String? = nil
        ) {
            self.enabled = enabled
            self.listen = listen
            self.rateLimit = rateLimit
            self.burst = burst
            self.maxBodyBytes = maxBodyBytes
            self.bindTimeout = bindTimeout
            self.insecureExpose = insecureExpose
            self.tlsCertificate = tlsCertificate
            self.tlsKey = tlsKey
        }

        /// True when both TLS files are configured: the API serves HTTPS.
        public var servesTLS: Bool { tlsCertificate != nil && tlsKey != nil }
    }

    /// `[shutdown]`.
    public struct Shutdown: Sendable, Equatable {
        /// How long SIGTERM's graceful stop may take before the daemon exits anyway (non-zero,
        /// naming what did not stop). Why 10 s: a supervisor in the middle of an AT query needs at
        /// most its 3 s query timeout to finish, a SQLite commit milliseconds; the unit's
        /// `TimeoutStopSec=30` leaves systemd room above it.
        public var gracePeriod: Duration

        public init(gracePeriod: Duration = .seconds(10)) {
            self.gracePeriod = gracePeriod
        }
    }

    /// `[log]`.
    public struct Log: Sendable, Equatable {
        /// Why `info` by default: every modem state change is logged at info, which is what an
        /// operator reads in `journalctl -u nbgwd`; raw AT traffic is at trace.
        public var level: Logger.Level

        public init(level: Logger.Level = .info) {
            self.level = level
        }
    }
}
