import Foundation
import NBGWCore
import ServerSupport

/// How the ingest HTTP service listens and what it accepts.
public struct IngestConfiguration: Sendable {
    /// A per-API-key token bucket: `requestsPerSecond` sustained, `burst` at once.
    public struct RateLimit: Sendable {
        public var requestsPerSecond: Double
        public var burst: Int

        public init(requestsPerSecond: Double, burst: Int) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = burst
        }
    }

    /// The address to listen on. Loopback by default: without ``tls`` the service speaks plain
    /// HTTP, so a non-loopback address needs TLS here or a TLS-terminating proxy in front
    /// (docs/ingest.md).
    public var host: String
    /// The TCP port; 0 picks a free one (tests).
    public var port: Int
    /// The largest request body accepted (413 above it). Why 16 KiB: a bind request carries one QR
    /// payload of at most 4096 bytes plus two names and a token.
    public var maxBodyBytes: Int
    /// Per-key rate limit; nil disables it (benchmarks).
    public var rateLimit: RateLimit?
    /// The activation budget of a bind over HTTP (the CLI's `--timeout`). Why 10 s, not the seed's
    /// 120 s: an HTTP client gives up long before; a store locked that long answers 503 TIMEOUT.
    public var bindTimeout: Duration
    /// The `Server` header, if any.
    public var serverName: String?
    /// Wall time for token status (pending/expired) in pairing results.
    public var wallClock: any WallClock
    /// Elapsed time for the rate limiter's buckets; injected so tests control it.
    public var rateLimitClock: @Sendable () -> Duration
    /// While the service exists, its registry checkpoints the WAL in the background at this interval
    /// instead of inside commits (``Registry/checkpointInBackground(every:)``); nil leaves the
    /// registry as it was opened. Why 100 ms: at thousands of binds a second the log grows by a
    /// few megabytes in that time, and a PASSIVE checkpoint of it takes a few milliseconds off the
    /// request path; longer only makes the log (and a reader's look-ups in it) bigger.
    public var walCheckpointInterval: Duration?
    /// How long a bind or unbind waits for a syncing cloud after its local commit (then it answers
    /// `cloudSync: queued`); the daemon's `[cloud] sync_wait`. Two seconds unless set.
    public var cloudWait: Duration = .seconds(2)
    /// The certificate and key to serve HTTPS with (``IngestTLS/load(certificate:key:)``); nil
    /// serves plain HTTP.
    public var tls: IngestTLS?
    /// What clients may hold of the listener (connections, idle time, slow bodies and readers).
    public var connectionLimits = IngestConnectionLimits()
    /// The listener's open connections, for whoever reports them (metrics, tests).
    public var connectionCount = ListenerConnectionBudget.Count()
    /// Where the listener records its connections (per client, idle or busy); nil: one made from
    /// ``connectionLimits`` and ``trustedProxies``. Set to read what it holds (tests, metrics).
    public var connectionTable: ListenerConnectionTable?
    /// The origin browsers reach the listener at when a TLS-terminating proxy is in front
    /// (`https://gw.example`): cookies are then `Secure` with the `__Host-` prefix, and the console
    /// takes changes only from this origin.
    public var publicOrigin: String?
    /// Proxies whose `X-Forwarded-For` is believed (IP addresses, as the peer's address reads): the
    /// client's address in the trail is then the one the proxy saw, and the proxy's connections are
    /// not capped per client. Empty: the header is ignored.
    public var trustedProxies: Set<String> = []

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxBodyBytes: Int = 16 * 1024,
        rateLimit: RateLimit? = RateLimit(requestsPerSecond: 50, burst: 100),
        bindTimeout: Duration = .seconds(10),
        serverName: String? = nil,
        wallClock: any WallClock = SystemWallClock(),
        rateLimitClock: @escaping @Sendable () -> Duration = IngestConfiguration.uptime,
        walCheckpointInterval: Duration? = .milliseconds(100),
        tls: IngestTLS? = nil
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.rateLimit = rateLimit
        self.bindTimeout = bindTimeout
        self.serverName = serverName
        self.wallClock = wallClock
        self.rateLimitClock = rateLimitClock
        self.walCheckpointInterval = walCheckpointInterval
        self.tls = tls
    }

    private static let started = ContinuousClock.now

    /// Time elapsed since the process first asked (monotonic).
    @Sendable public static func uptime() -> Duration {
        started.duration(to: .now)
    }

    /// True when `host` is a loopback address: an IP literal in 127.0.0.0/8, `::1`, or `localhost`
    /// (never a name that only starts like one, `127.evil.example`: ``LoopbackHost``).
    public var isLoopback: Bool {
        LoopbackHost.contains(host)
    }

    /// `https` with ``tls``, else `http`.
    public var scheme: String { tls == nil ? "http" : "https" }
}
