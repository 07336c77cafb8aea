import Registry

/// A local unbind and whether the cloud has it yet (``HTTPCloud/unbind(deviceID:source:operator:syncNow:)``).
public struct CloudUnbindResult: Sendable, Equatable {
    /// The binding that was removed.
    public var binding: BindingRecord
    public var sync: CloudSyncStatus

    public init(binding: BindingRecord, sync: CloudSyncStatus) {
        self.binding = binding
        self.sync = sync
    }
}
