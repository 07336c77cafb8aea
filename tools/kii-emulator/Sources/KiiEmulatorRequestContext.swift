import Hummingbird

/// The request context: Hummingbird's core storage plus a way to drop the connection (the
/// `drop_connections` and `drop_after_processing` faults).
public struct KiiEmulatorRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Closes the TCP connection without an answer.
    let closeConnection: @Sendable () -> Void

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = CoreRequestContextStorage(source: source)
        let channel = source.channel
        self.closeConnection = { channel.close(promise: nil) }
    }
}
