import Foundation

/// Wall-clock time for timestamps and token expiry, injected so tests control it.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's real-time clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
