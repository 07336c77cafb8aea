/// Whether a local change has reached the cloud yet.
public struct CloudSyncStatus: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable {
        /// The cloud confirmed it.
        case synced
        /// Queued in the outbox (the cloud was unreachable or busy, or earlier work for the same
        /// device is still queued); `nbgw cloud sync` or the daemon sends it.
        case queued
        /// The cloud refused it; the row is dead and `nbgw cloud sync --check` reports it.
        case failed
        /// Nothing to send (the change was a no-op).
        case notNeeded = "not-needed"
    }

    public var state: State
    /// The outbox row, when there is one.
    public var outboxID: Int64?
    /// Why it is queued or failed, for the operator.
    public var message: String?
    /// The error code when it failed or is queued because of an error.
    public var code: String?

    public init(state: State, outboxID: Int64? = nil, message: String? = nil, code: String? = nil) {
        self.state = state
        self.outboxID = outboxID
        self.message = message
        self.code = code
    }
}
