/// What one ``OutboxDrainer/drain(maxRows:)`` did.
public struct OutboxDrainReport: Sendable, Equatable, Codable {
    /// A row that did not get through.
    public struct Failure: Sendable, Equatable, Codable {
        public var outboxID: Int64
        public var operation: String
        public var subject: String
        public var code: String
        public var message: String
        /// True when the row is dead (the cloud refused it); false when it will be retried.
        public var final: Bool
    }

    /// Rows the cloud accepted (now done).
    public var sent = 0
    /// Rows that failed transiently and wait for a later attempt.
    public var rescheduled = 0
    /// Rows the cloud refused for good (now dead).
    public var dead = 0
    /// Why the drain stopped early (a configuration problem, an unreachable cloud, the store).
    public var stoppedBy: String?
    public var failures: [Failure] = []
    /// Rows per state after the drain (`pending`, `inflight`, `done`, `dead`).
    public var remaining: [String: Int] = [:]

    public init() {}

    /// True when nothing failed and nothing is left to send.
    public var isComplete: Bool {
        stoppedBy == nil && failures.isEmpty && (remaining["pending"] ?? 0) == 0 && (remaining["inflight"] ?? 0) == 0
    }
}
