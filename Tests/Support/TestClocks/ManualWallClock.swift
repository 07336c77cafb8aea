import Foundation
import NBGWCore
import Synchronization

/// A wall clock (``WallClock``: token expiry, audit times, the outbox's schedule) that moves only
/// when a test calls ``advance(by:)``. One type for every test target that injects wall time into
/// the store, the clouds' clients and emulators, or the console.
public final class ManualWallClock: WallClock, Sendable {
    private let current: Mutex<Date>

    /// Starts at `start`: by default 2026-09-21T12:53:20Z, a fixed instant, so a test's times repeat.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = Mutex(start) }

    public func now() -> Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}
