import NBGWCore

/// The store refused a chunk decided on an earlier snapshot (``BatchDecider/decideOnSnapshot(_:operator:)``):
/// another writer changed a row the decisions relied on between the snapshot and the chunk's
/// transaction (an HTTP bind of the same device, a device removed, a home's products changed). The
/// chunk was rolled back; nothing of it is in the store. The batch decides it again under the
/// write lock, where the store's answer is final.
public struct BatchWriteConflict: Error, Sendable, CustomStringConvertible {
    /// SQLite's reason (the constraint or the trigger's message).
    public var reason: String

    public var description: String { "a batch chunk went stale before it was written: \(reason)" }
}
