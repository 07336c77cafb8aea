import Registry

/// A local bind and whether the cloud has it yet (``HTTPCloud/bind(_:timeout:syncNow:)``).
public struct CloudBindResult: Sendable, Equatable {
    public var outcome: BindOutcome
    public var sync: CloudSyncStatus

    public init(outcome: BindOutcome, sync: CloudSyncStatus) {
        self.outcome = outcome
        self.sync = sync
    }
}
