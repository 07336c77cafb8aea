import Foundation
import NBGWCore
import Registry

/// One console batch as the page shows it: its job in the store (`batch_job`, so the list survives
/// a restart) and whether it runs in this process now.
public struct ConsoleBatchJob: Sendable {
    public enum Status: String, Sendable {
        /// Binding now, in this process.
        case running
        /// Every row done.
        case finished
        /// Stopped before its end (the daemon stopped, a failure, a crash): a resume goes on from
        /// its last committed chunk.
        case interrupted
        /// Given up: interrupted for longer than the retention (its upload deleted), or its upload gone.
        case abandoned
    }

    public var record: BatchJobRecord
    public var status: Status
    /// The name the file was uploaded under (letters, digits, `.`, `-`, `_`; others became `_`).
    public var name: String
    /// Why this process's last run of it failed, when it did (nil after a stop or a restart).
    public var error: NBGWError?
    /// Whether the report file is still there (it is deleted after the retention).
    public var hasReport: Bool

    public var id: Int64 { record.id }
    public var done: Bool { status != .running }
}
