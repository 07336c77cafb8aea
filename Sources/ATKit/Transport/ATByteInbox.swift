import Synchronization

/// The hand-off between a producer that is not in Swift concurrency (the serial poller thread, a test
/// double) and the single async consumer of ``ATTransport/read()``.
///
/// Bytes are appended by the producer; ``next()`` returns everything buffered or suspends until
/// something arrives. ``finish(throwing:)`` ends the stream: buffered bytes are still delivered,
/// then every read throws the given error.
///
/// Memory is bounded: if the consumer stops reading, at most `limit` bytes are kept and the oldest
/// are dropped (a modem that babbles into a session nobody reads must not exhaust the gateway).
final class ATByteInbox: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var waiters: [(id: UInt64, continuation: CheckedContinuation<[UInt8], any Error>)] = []
        var nextWaiterID: UInt64 = 0
        var failure: (any Error)?
        var droppedByteCount = 0
    }

    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int = 1 << 20) {
        self.limit = limit
    }

    /// Bytes dropped because the buffer was full.
    var droppedByteCount: Int { state.withLock { $0.droppedByteCount } }

    /// Whether ``finish(throwing:)`` has been called.
    var isFinished: Bool { state.withLock { $0.failure != nil } }

    /// Adds bytes; ignored after ``finish(throwing:)``.
    func append(_ bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty else { return }
        let waiter: CheckedContinuation<[UInt8], any Error>? = state.withLock { state in
            guard state.failure == nil else { return nil }
            if !state.waiters.isEmpty {
                // A reader is parked, so the buffer is empty: hand the bytes over directly.
                return state.waiters.removeFirst().continuation
            }
            state.buffer.append(contentsOf: bytes)
            if state.buffer.count > limit {
                let excess = state.buffer.count - limit
                state.buffer.removeFirst(excess)
                state.droppedByteCount += excess
            }
            return nil
        }
        waiter?.resume(returning: Array(bytes))
    }

    /// Ends the stream. Buffered bytes are still returned by ``next()``; after that it throws `error`.
    /// Only the first call has an effect.
    func finish(throwing error: any Error) {
        let waiters: [CheckedContinuation<[UInt8], any Error>] = state.withLock { state in
            guard state.failure == nil else { return [] }
            state.failure = error
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters {
            waiter.resume(throwing: error)
        }
    }

    /// Everything buffered, or suspends until bytes arrive or the stream is finished.
    ///
    /// Cancelling the calling task makes a parked call throw `CancellationError`; no bytes are lost.
    func next() async throws -> [UInt8] {
        let id = state.withLock { state in
            defer { state.nextWaiterID &+= 1 }
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<[UInt8], any Error>? = state.withLock { state in
                    if !state.buffer.isEmpty {
                        defer { state.buffer.removeAll(keepingCapacity: true) }
                        return .success(state.buffer)
                    }
                    if let failure = state.failure {
                        return .failure(failure)
                    }
                    if Task.isCancelled {
                        return .failure(CancellationError())
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let immediate {
                    continuation.resume(with: immediate)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<[UInt8], any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
