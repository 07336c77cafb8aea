/// A chunk of CSV rows decided but not yet written: each row's outcome, and the writes the bound
/// and met rows call for, applied set-wise by ``BatchSession/writeChunk(_:job:finished:)``.
public struct BatchDecidedChunk: Sendable {
    /// One outcome per row, in the rows' order.
    public internal(set) var outcomes: [BatchRowOutcome] = []
    /// Devices met and not bound, packed as `row << 32 | line` (their `batch_job_device` rows).
    var seen: [Int64] = []
    /// Devices to bind, grouped by account and home.
    var binds: [Key: Group] = [:]
    /// Every device this chunk named → its first line here: what the next chunk must count as met
    /// while this one is still being written (``BatchDecider``).
    var met: [Int64: Int] = [:]
    /// The chunk's clock reading (the binds' `bound_at`) and operator.
    var now: Int64 = 0
    var `operator`: String?

    struct Key: Hashable, Sendable {
        var account: Int64
        var home: Int64
    }

    struct Group: Sendable {
        var accountName: String
        var homeName: String
        var rows: [Int64] = []
        /// The same devices packed with their lines (`row << 32 | line`), for their audit rows.
        var seen: [Int64] = []
        /// The devices' ids, for their outbox rows (only when the batch queues cloud binds).
        var deviceIDs: [String] = []

        /// Adds a device to bind: its row, `row << 32 | line`, and its id when it is to be queued.
        mutating func add(row: Int64, met: Int64, deviceID: String?) {
            rows.append(row)
            seen.append(met)
            if let deviceID { deviceIDs.append(deviceID) }
        }
    }

    /// Drops what only the chunk's decider and report need (the outcomes, the devices met),
    /// keeping its writes: what ``BatchSession/writeChunk(_:job:finished:)`` takes.
    public mutating func dropDecisions() {
        outcomes = []
        met = [:]
    }

    /// True when the chunk writes nothing (every row refused or unchanged, and no device met).
    var writesNothing: Bool { seen.isEmpty && binds.isEmpty }
}
