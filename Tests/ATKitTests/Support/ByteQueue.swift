import Synchronization

@testable import ATKit

/// Bytes flowing one way between a test and the code under test, with async extraction.
///
/// `take` waits until its extractor can cut something out of the buffer (everything, a line, n
/// bytes); after `finish(throwing:)` buffered bytes can still be taken, then waiters throw.
final class ByteQueue: Sendable {
    typealias Extractor = @Sendable ([UInt8]) -> (value: [UInt8], consumed: Int)?

    private struct Waiter {
        let extract: Extractor
        let continuation: CheckedContinuation<[UInt8], any Error>
    }

    private struct State {
        var buffer: [UInt8] = []
        var waiters: [Waiter] = []
        var failure: (any Error)?
    }

    private let state = Mutex(State())

    var bufferedCount: Int { state.withLock { $0.buffer.count } }
    var isFinished: Bool { state.withLock { $0.failure != nil } }

    func append(_ bytes: [UInt8]) {
        let ready = state.withLock { state -> [(CheckedContinuation<[UInt8], any Error>, [UInt8])] in
            guard state.failure == nil else { return [] }
            state.buffer += bytes
            return Self.serve(&state)
        }
        for (continuation, value) in ready {
            continuation.resume(returning: value)
        }
    }

    func finish(throwing error: any Error) {
        let waiters = state.withLock { state -> [Waiter] in
            guard state.failure == nil else { return [] }
            state.failure = error
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: error)
        }
    }

    func take(_ extract: @escaping Extractor) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            let immediate = state.withLock { state -> Result<[UInt8], any Error>? in
                if state.waiters.isEmpty, let (value, consumed) = extract(state.buffer) {
                    state.buffer.removeFirst(consumed)
                    return .success(value)
                }
                if let failure = state.failure { return .failure(failure) }
                state.waiters.append(Waiter(extract: extract, continuation: continuation))
                return nil
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    private static func serve(_ state: inout State) -> [(CheckedContinuation<[UInt8], any Error>, [UInt8])] {
        var ready: [(CheckedContinuation<[UInt8], any Error>, [UInt8])] = []
        while let waiter = state.waiters.first, let (value, consumed) = waiter.extract(state.buffer) {
            state.buffer.removeFirst(consumed)
            state.waiters.removeFirst()
            ready.append((waiter.continuation, value))
        }
        return ready
    }

    static let everything: Extractor = { buffer in buffer.isEmpty ? nil : (buffer, buffer.count) }

    static let line: Extractor = { buffer in
        guard let end = buffer.firstIndex(of: 0x0D) else { return nil }
        return (Array(buffer[..<end]), end + 1)
    }

    static func bytes(_ count: Int) -> Extractor {
        { buffer in buffer.count >= count ? (Array(buffer.prefix(count)), count) : nil }
    }
}
