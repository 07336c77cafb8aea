/// A CSV batch job's committed state (table `batch_job`).
public struct BatchJob: Sendable, Equatable {
    public var id: Int64
    public var inputPath: String
    public var inputSize: Int64
    public var inputMtimeNanoseconds: Int64
    public var reportPath: String
    public var defaultAccount: String?
    public var defaultHome: String?
    public var nextOffset: Int64
    public var nextLine: Int
    public var reportOffset: Int64
    public var rowsDone: Int
    public var bound: Int
    public var unchanged: Int
    public var failed: Int
    /// Failure counts per error code (raw value → count).
    public var failuresByCode: [String: Int]
    /// True when this job was found unfinished and is being resumed.
    public var resumed: Bool
}
