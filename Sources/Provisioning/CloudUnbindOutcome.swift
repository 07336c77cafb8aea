import Registry

/// A local unbind and where the cloud stands on it (``BindingService/unbind(deviceID:source:operator:)``).
public struct CloudUnbindOutcome: Sendable, Equatable {
    public var binding: BindingRecord
    /// Nil when nothing needed syncing (the embedded cloud).
    public var sync: CloudSyncStatus?

    public init(binding: BindingRecord, sync: CloudSyncStatus? = nil) {
        self.binding = binding
        self.sync = sync
    }

    /// `synced`, `queued`, `failed`, or nil when nothing needed syncing.
    public var syncState: String? { sync?.state.rawValue }
    public var syncMessage: String? { sync?.message }
}
