import Foundation
import NBGWCore
import Registry
import Synchronization

/// Monotonic time for sessions, moved by hand.
final class TestUptime: Sendable {
    private let current = Mutex<Duration>(.seconds(1000))

    func now() -> Duration { current.withLock { $0 } }

    func advance(_ duration: Duration) { current.withLock { $0 += duration } }
}

/// A fresh store in a temporary directory.
func temporaryRegistry(clock: any WallClock = SystemWallClock()) throws -> (Registry, String) {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("nbgw-console-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let registry = try Registry(path: directory + "/store.sqlite", clock: clock)
    return (registry, directory)
}
