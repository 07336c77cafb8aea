import Foundation

/// A value behind a lock, for state shared between a supervisor's tasks and synchronous readers
/// (``Gateway/snapshot()``). Never held across an `await`.
///
/// `Synchronization.Mutex` would do, but it needs macOS 15 while the package declares macOS 14.
final class GatewayLocked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
