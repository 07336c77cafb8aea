import Foundation

/// A CSV batch job as it is listed afterwards (table `batch_job`): its files, who started it, when,
/// how far it got and how it ended. ``BatchJob`` is the state a run carries from chunk to chunk; this
/// is the row read back by whoever shows jobs (the console's batch page).
public struct BatchJobRecord: Sendable, Equatable {
    public var id: Int64
    public var inputPath: String
    public var inputSize: Int64
    public var reportPath: String
    public var defaultAccount: String?
    public var defaultHome: String?
    /// Who started the job (the first run's operator).
    public var `operator`: String?
    public var startedAt: Date
    /// The last commit (a chunk, the end, an abandon).
    public var updatedAt: Date
    public var finishedAt: Date?
    public var abandonedAt: Date?
    /// Where the next run starts: the byte offset and physical line of the first uncommitted record.
    public var nextOffset: Int64
    public var nextLine: Int
    public var rowsDone: Int
    public var bound: Int
    public var unchanged: Int
    public var failed: Int
    /// Failure counts per error code (raw value → count).
    public var failuresByCode: [String: Int]

    /// Neither finished nor abandoned: a run of the same input resumes it.
    public var isOpen: Bool { finishedAt == nil && abandonedAt == nil }

    public init(
        id: Int64,
        inputPath: String,
        inputSize: Int64,
        reportPath: String,
        defaultAccount: String? = nil,
        defaultHome: String? = nil,
        operator: String? = nil,
        startedAt: Date,
        updatedAt: Date,
        finishedAt: Date? = nil,
        abandonedAt: Date? = nil,
        nextOffset: Int64 = 0,
        nextLine: Int = 2,
        rowsDone: Int = 0,
        bound: Int = 0,
        unchanged: Int = 0,
        failed: Int = 0,
        failuresByCode: [String: Int] = [:]
    ) {
        self.id = id
        self.inputPath = inputPath
        self.inputSize = inputSize
        self.reportPath = reportPath
        self.defaultAccount = defaultAccount
        self.defaultHome = defaultHome
        self.operator = `operator`
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
        self.abandonedAt = abandonedAt
        self.nextOffset = nextOffset
        self.nextLine = nextLine
        self.rowsDone = rowsDone
        self.bound = bound
        self.unchanged = unchanged
        self.failed = failed
        self.failuresByCode = failuresByCode
    }
}
