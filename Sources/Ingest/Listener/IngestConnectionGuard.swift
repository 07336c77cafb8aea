import Logging
import NIOCore
import NIOHTTPTypes

/// One per connection of the ingest and console listener, in its pipeline after HTTP decoding:
/// records the connection in the listener's ``ListenerConnectionTable`` (which refuses a client
/// past its share and closes the longest-idle connections when the listener fills up), tells it
/// when a request is in flight, closes a request body that is too slow and a response the client
/// stops reading (``IngestConnectionLimits``). Hummingbird's own idle timeout closes connections
/// with no request in flight, and heads that never complete.
///
/// Runs on the connection's event loop only (NIO's handler contract), so its state needs no lock.
final class IngestConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: IngestConnectionLimits
    private let table: ListenerConnectionTable
    private let logger: Logger
    /// The client's address once recorded (released when the connection closes).
    private var counted: String?
    private var channel: (any Channel)?
    private var started = false
    /// The body being read: when its head arrived and how many bytes came since.
    private var bodyStart: NIODeadline?
    private var bodyBytes = 0
    private var rateCheck: Scheduled<Void>?
    private var stallCheck: Scheduled<Void>?

    init(limits: IngestConnectionLimits, table: ListenerConnectionTable, logger: Logger) {
        self.limits = limits
        self.table = table
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            bodyStart = context.eventLoop.now
            bodyBytes = 0
            table.busy(context.channel)
            scheduleRateCheck(context)
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
        case .end:
            bodyStart = nil
            rateCheck?.cancel()
            rateCheck = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { table.idle(context.channel, now: context.eventLoop.now) }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallCheck?.cancel()
            stallCheck = nil
        } else if stallCheck == nil {
            let timeout = limits.writeStallTimeout
            stallCheck = context.eventLoop.assumeIsolated().scheduleTask(in: .init(timeout)) { [self] in
                stallCheck = nil
                guard !context.channel.isWritable else { return }
                logger.notice(
                    "ingest connection closed: the client stopped reading its answer",
                    metadata: ["client": "\(counted ?? Self.address(of: context.channel))", "after": "\(timeout)"]
                )
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Limits

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let client = Self.address(of: context.channel)
        guard table.admit(context.channel, client: client, now: context.eventLoop.now) else {
            // Refused connections are counted (``ListenerConnectionTable/refused``) rather than each
            // logged: a flood would otherwise write a log line per attempt.
            context.close(promise: nil)
            return
        }
        counted = client
        channel = context.channel
    }

    private func stop() {
        rateCheck?.cancel()
        rateCheck = nil
        stallCheck?.cancel()
        stallCheck = nil
        if let channel {
            self.channel = nil
            counted = nil
            table.release(channel)
        }
    }

    /// Every ``checkInterval`` while a body is read: past the grace period, a body slower on
    /// average than the minimum rate closes the connection.
    private func scheduleRateCheck(_ context: ChannelHandlerContext) {
        rateCheck?.cancel()
        rateCheck = context.eventLoop.assumeIsolated().scheduleTask(in: checkInterval) { [self] in
            rateCheck = nil
            guard let start = bodyStart else { return }
            let elapsed = context.eventLoop.now - start
            let grace = TimeAmount(limits.bodyGrace)
            if elapsed > grace {
                let seconds = Double(elapsed.nanoseconds) / 1e9
                if Double(bodyBytes) / seconds < Double(limits.minBodyBytesPerSecond) {
                    logger.notice(
                        "ingest connection closed: the request body arrives too slowly",
                        metadata: [
                            "client": "\(counted ?? Self.address(of: context.channel))",
                            "bytes": "\(bodyBytes)", "seconds": "\(Int(seconds))",
                            "minimum": "\(limits.minBodyBytesPerSecond) B/s",
                        ]
                    )
                    context.close(promise: nil)
                    return
                }
            }
            scheduleRateCheck(context)
        }
    }

    /// How often a body's rate is looked at: every 5 s, or twice per grace period when that is shorter.
    private var checkInterval: TimeAmount {
        min(.seconds(5), max(.milliseconds(100), TimeAmount(limits.bodyGrace / 2)))
    }

    /// The peer's IP address without its port (`unknown` for a Unix socket, never in practice).
    static func address(of channel: any Channel) -> String {
        channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
