import Synchronization

/// Waits for a task several callers share (the token fetch), such that a cancelled caller stops
/// waiting at once while the task itself goes on for the others.
///
/// Why not `await task.value`: awaiting another task's value does not end when the awaiting task
/// is cancelled. A bind that stopped waiting for the cloud after its 2-second budget sat behind a
/// token fetch to a silent server for the fetch's whole retry policy (300 s measured,
/// `LocalFirstTests`).
enum SharedTaskWaiter {
    static func value<Success: Sendable>(of task: Task<Success, any Error>) async throws -> Success {
        let box = Box<Success>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                box.install(continuation)
                Task { box.resume(with: await task.result) }
            }
        } onCancel: {
            box.resume(with: .failure(CancellationError()))
        }
    }

    /// A continuation resumed exactly once, by whichever comes first: the task's result or the
    /// caller's cancellation (which may come before the continuation exists).
    final class Box<Success: Sendable>: Sendable {
        private enum State {
            case waiting
            case installed(CheckedContinuation<Success, any Error>)
            case early(Result<Success, any Error>)
            case resumed
        }

        private let state = Mutex(State.waiting)

        func install(_ continuation: CheckedContinuation<Success, any Error>) {
            let early: Result<Success, any Error>? = state.withLock { state in
                if case .early(let result) = state {
                    state = .resumed
                    return result
                }
                state = .installed(continuation)
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func resume(with result: Result<Success, any Error>) {
            let continuation: CheckedContinuation<Success, any Error>? = state.withLock { state in
                switch state {
                case .waiting:
                    state = .early(result)
                    return nil
                case .installed(let continuation):
                    state = .resumed
                    return continuation
                case .early, .resumed:
                    return nil
                }
            }
            continuation?.resume(with: result)
        }
    }
}
