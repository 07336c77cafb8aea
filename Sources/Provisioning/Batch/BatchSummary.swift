/// How a batch ended: counts per status and per error code, throughput, where the report is.
public struct BatchSummary: Sendable, Encodable, Equatable {
    public var jobId: Int64?
    public var input: String
    public var report: String
    public var dryRun: Bool
    /// Data rows covered by the report (all runs of this job, including resumed ones).
    public var rows: Int
    public var bound: Int
    public var unchanged: Int
    public var failed: Int
    public var failuresByCode: [String: Int]
    /// Rows processed by this run and its wall time.
    public var rowsThisRun: Int
    public var seconds: Double
    public var rowsPerSecond: Double
    /// The physical line this run started at (greater than the first data line when resuming).
    public var resumedFromLine: Int?
    /// True when a stop request ended the run at a chunk boundary; rerun the command to resume.
    public var stopped: Bool
    public var stoppedAtLine: Int?
    /// Header columns that were ignored.
    public var ignoredColumns: [String]
    /// Chunks decided again under the store's write lock because another writer (an HTTP bind, the
    /// daemon) changed a device between the chunk's snapshot and its write; 0 when nothing else
    /// wrote. Their rows' outcomes are the store's final answer either way.
    public var chunksRedecided: Int = 0

    /// A summary of `input`'s batch, its report at `report`; every count and time starts at zero
    /// (what ``BatchBinder/run(_:progress:shouldStop:)`` fills in, or a front end's own test does).
    public init(input: String, report: String) {
        self.input = input
        self.report = report
        dryRun = false
        rows = 0
        bound = 0
        unchanged = 0
        failed = 0
        failuresByCode = [:]
        rowsThisRun = 0
        seconds = 0
        rowsPerSecond = 0
        stopped = false
        ignoredColumns = []
    }
}
