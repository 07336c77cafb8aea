import Foundation
import Synchronization

/// Every tty the daemon has seen and what it decided, kept as discovery goes (start-up enumeration,
/// hot-plug, unplug, static ports). Thread-safe: the discovery task writes, the control socket and
/// tests read from anywhere.
///
/// ```swift
/// let ledger = DiscoveryLedger()
/// ledger.record(DiscoveryEntry(port: port, decision: policy.decide(port)))
/// ledger.remove(devnode: "/dev/ttyUSB0")          // unplugged
/// let now = ledger.entries()                        // sorted by devnode; JSON through Codable
/// ```
public final class DiscoveryLedger: Sendable {
    private let byDevnode = Mutex<[String: DiscoveryEntry]>([:])

    public init() {}

    /// Records `entry`, replacing what was known about its devnode.
    public func record(_ entry: DiscoveryEntry) {
        byDevnode.withLock { $0[entry.devnode] = entry }
    }

    /// Forgets the port at `devnode` (unplugged). A `[[ports]]` entry stays (the config still names
    /// it), without the udev facts of the device that went away.
    public func remove(devnode: String) {
        byDevnode.withLock { byDevnode in
            guard let entry = byDevnode[devnode] else { return }
            if entry.decision == .static {
                byDevnode[devnode] = DiscoveryEntry(
                    devnode: entry.devnode,
                    decision: .static,
                    reason: entry.reason,
                    source: entry.source
                )
            } else {
                byDevnode[devnode] = nil
            }
        }
    }

    /// What the daemon knows now, sorted by devnode.
    public func entries() -> [DiscoveryEntry] {
        byDevnode.withLock { $0.values.sorted { $0.devnode < $1.devnode } }
    }

    /// The entry of `devnode`, if any.
    public func entry(devnode: String) -> DiscoveryEntry? {
        byDevnode.withLock { $0[devnode] }
    }
}
