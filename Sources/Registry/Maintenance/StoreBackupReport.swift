/// What ``Registry/backup(storeAt:to:)`` wrote: the copy, and the check of the copy.
public struct StoreBackupReport: Sendable, Equatable, Codable {
    /// The store copied.
    public var source: String
    /// The backup file (complete and checked; it appears under this name only then).
    public var destination: String
    /// Pages SQLite's backup API copied.
    public var pages: Int
    /// The copy's check: sound, with the schema of the store at the moment of the copy.
    public var check: StoreCheckReport
}
