import Foundation

/// A value guarded by a lock, for the few places where state is shared with a non-Swift-concurrency
/// thread (the serial poller thread) or must be read synchronously.
///
/// `Synchronization.Mutex` would do the same, but it needs macOS 15 while the package still
/// declares macOS 14.
final class ATLocked<State>: @unchecked Sendable {
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
