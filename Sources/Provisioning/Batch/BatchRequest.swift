/// What `nbgw bind --csv` asks for.
public struct BatchRequest: Sendable {
    public var inputPath: String
    /// Where the per-row report goes; default `INPUT.report.csv`.
    public var reportPath: String?
    public var defaultAccount: String?
    public var defaultHome: String?
    /// Validate everything against the store and write only the report.
    public var dryRun: Bool
    /// Abandon an unfinished job for this input instead of resuming it.
    public var restart: Bool
    public var `operator`: String?
    /// Rows per transaction (``defaultChunkSize`` unless given).
    /// Why 2,500 rows: big enough that commit cost vanishes (~100 µs each in WAL mode), small
    /// enough that a crash redoes at most a fraction of a second and that other writers (the
    /// daemon, a single `nbgw bind`) wait at most that long for the lock. Why not 5,000 as before:
    /// a pipelined batch holds about four chunks at once (read, decided, written, the next being
    /// read); at 2,500 rows its peak RSS was 58.2–59.0 MiB against 63.1–64.2 MiB at 5,000, for the
    /// same time (1 M rows of `tools/bench-csv.sh`'s mix, 3 alternating runs each).
    public static let defaultChunkSize = 2500
    public var chunkSize: Int
    /// Decide each chunk on a snapshot while the chunk before is written (``BatchBinder``); false
    /// decides and writes one chunk after the other under the write lock. The same outcomes either
    /// way (a test holds them equal); a dry run is always the latter.
    public var pipelined: Bool

    public init(
        inputPath: String,
        reportPath: String? = nil,
        defaultAccount: String? = nil,
        defaultHome: String? = nil,
        dryRun: Bool = false,
        restart: Bool = false,
        operator: String? = nil,
        chunkSize: Int = BatchRequest.defaultChunkSize,
        pipelined: Bool = true
    ) {
        self.inputPath = inputPath
        self.reportPath = reportPath
        self.defaultAccount = defaultAccount
        self.defaultHome = defaultHome
        self.dryRun = dryRun
        self.restart = restart
        self.operator = `operator`
        self.chunkSize = chunkSize
        self.pipelined = pipelined
    }
}
