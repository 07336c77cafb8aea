import Registry

/// A local bind and where the cloud stands on it (``BindingService``).
public struct CloudBindOutcome: Sendable, Equatable {
    public var outcome: BindOutcome
    /// Nil when nothing needed syncing (the embedded cloud, or a bind that changed nothing).
    public var sync: CloudSyncStatus?

    public init(outcome: BindOutcome, sync: CloudSyncStatus? = nil) {
        self.outcome = outcome
        self.sync = sync
    }

    /// `synced`, `queued`, `failed`, or nil when nothing needed syncing.
    public var syncState: String? { sync?.state.rawValue }
    public var syncMessage: String? { sync?.message }
}
