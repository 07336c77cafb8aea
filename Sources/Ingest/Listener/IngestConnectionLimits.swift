/// What one client, and all of them together, may hold of the ingest and console listener
/// (docs/operations.md, "Hostile load"). Each limit is answered by closing the connection, never
/// by a thread or a descriptor left waiting: nobody who can reach the port, signed in or not, can
/// take the daemon's descriptors or its threads.
public struct IngestConnectionLimits: Sendable, Equatable {
    /// Connections open at once; past it the listener stops accepting (further clients wait in the
    /// kernel's backlog, holding none of the daemon's descriptors) until one closes. Why 512: a
    /// line of 50 phones and tablets at 6 connections each, plus the scanners and a proxy, with
    /// room; the daemon caps it further to half of its descriptor limit (``capped(toDescriptorLimit:)``).
    public var maxConnections: Int
    /// Connections one client address may hold at once (a trusted proxy's address is not counted).
    /// Why 64: a browser opens 6 per origin, a station's client pool a few dozen; one address then
    /// holds at most an eighth of the listener (1,100 idle connections from one address took every
    /// descriptor of the daemon before the caps, docs/operations.md).
    public var maxConnectionsPerClient: Int
    /// A connection with no request in flight closes after this; it also bounds the wait for a
    /// request's head (a client trickling a head byte by byte is cut at the same moment). Why 20 s:
    /// a browser reuses an idle connection within seconds; a head arrives in one packet.
    public var idleTimeout: Duration
    /// A request body slower than this on average (bytes a second), counted from ``bodyGrace`` on,
    /// closes the connection. Why 1 KiB/s: a phone on a weak cell uploads a 64 MiB CSV in about
    /// 18 hours at that rate, so no person is cut off; a client sending nothing is cut 30 s in.
    public var minBodyBytesPerSecond: Int
    /// Above this many connections, the longest-idle ones are closed to make room
    /// (``ListenerConnectionTable``). Why an eighth below ``maxConnections`` (at least 4): the
    /// listener then keeps accepting while a flood of idle connections churns, so a client with a
    /// request is accepted within milliseconds instead of waiting behind the flood in the backlog.
    public var evictIdleAbove: Int {
        max(1, maxConnections - max(4, maxConnections / 8))
    }

    /// Connections the kernel queues for the listener before it accepts them (`listen(2)`'s
    /// backlog, capped by `net.core.somaxconn`: 4,096 on Debian 12). Why 2,048 and not
    /// Hummingbird's 256: a flood of connections fills a short queue, the kernel then drops every
    /// new SYN, and a client with a real request waits for TCP's retransmission (1 s, then 3 s)
    /// behind the flood; queued instead, it is accepted within milliseconds (tools/soak/soak.py:
    /// binds at p50 0.87 s under 3,000 idle connections with 256). Queued connections hold no
    /// descriptor of the daemon.
    public var backlog = 2048

    /// How long a body may take before its rate counts.
    public var bodyGrace: Duration
    /// A response the client stops reading closes the connection after this long without progress.
    /// Why 30 s: a phone on a weak cell reads a report's next kilobytes in far less.
    public var writeStallTimeout: Duration

    public init(
        maxConnections: Int = 512,
        maxConnectionsPerClient: Int = 64,
        idleTimeout: Duration = .seconds(20),
        minBodyBytesPerSecond: Int = 1024,
        bodyGrace: Duration = .seconds(30),
        writeStallTimeout: Duration = .seconds(30)
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.idleTimeout = idleTimeout
        self.minBodyBytesPerSecond = minBodyBytesPerSecond
        self.bodyGrace = bodyGrace
        self.writeStallTimeout = writeStallTimeout
    }

    /// These limits with ``maxConnections`` at most half of `limit` (the process's `RLIMIT_NOFILE`
    /// soft limit), and at least 16: the other half is the daemon's reserve for its store, serial
    /// ports, udev, the control socket, the metrics listener and the notification socket.
    public func capped(toDescriptorLimit limit: Int) -> IngestConnectionLimits {
        var capped = self
        capped.maxConnections = max(16, min(maxConnections, limit / 2))
        capped.maxConnectionsPerClient = min(maxConnectionsPerClient, capped.maxConnections)
        return capped
    }
}
