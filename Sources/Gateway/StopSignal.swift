import Synchronization

/// Why a supervisor was told to stop before it finished on its own.
enum StopReason: Sendable, Hashable {
    /// Discovery reported the port gone (`PortEvent.vanished`).
    case vanished
    /// Another interface of the same module became the AT port of `imei`.
    case secondary(atPort: String, imei: String)
}

/// Tells one supervisor to stop, once, with a reason; the supervisor's task waits on it next to
/// the supervisor and cancels it when it fires.
final class StopSignal: Sendable {
    private let state = Mutex<StopReason?>(nil)
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Fires the signal; the first reason given wins.
    func stop(_ reason: StopReason) {
        state.withLock { if $0 == nil { $0 = reason } }
        continuation.yield()
        continuation.finish()
    }

    /// The reason, once fired.
    var reason: StopReason? { state.withLock { $0 } }

    /// Returns when the signal fires, or when the waiting task is cancelled.
    func wait() async {
        for await _ in stream { return }
    }
}
