import Foundation
import NBGWCore
import Registry

extension BatchBinder {
    /// One run of a batch: the job's committed progress, the report, and the two ways to get
    /// through the file.
    struct Run {
        /// The job as last committed (or as opened).
        var job: BatchJob
        let report: BatchReportWriter
        let columns: Columns
        let inputPath: String
        let `operator`: String?
        let started: ContinuousClock.Instant
        let prepare: @Sendable (CSVRecord) -> Prepared
        var rowsThisRun = 0
        var chunksRedecided = 0
        var finished = false
        var stopped = false

        /// Chunk after chunk from the last committed one: read and parsed on the reader's thread,
        /// decided and written under the write lock, the report written before each commit.
        mutating func serial(
            _ session: BatchSession,
            _ request: BatchRequest,
            maxChunks: Int,
            progress: (BatchProgress) -> Void,
            shouldStop: () -> Bool
        ) throws {
            let reader = BatchChunkReader(
                path: inputPath,
                offset: job.nextOffset,
                line: job.nextLine,
                chunkSize: request.chunkSize,
                prepare: prepare
            )
            defer { reader.stop() }
            var chunks = 0
            while !finished && chunks < maxChunks {
                if shouldStop() {
                    stopped = true
                    return
                }
                let chunk = try reader.next()
                var next = job
                _ = try session.bindChunk(chunk.rows, operator: `operator`) { outcomes in
                    try BatchBinder.record(chunk, outcomes, columns: columns, job: &next, report: report)
                    return (next, chunk.finished)
                }
                committed(chunk, job: next, progress: progress)
                chunks += 1
            }
        }

        /// Chunk k+1 decided on a snapshot (``BatchDecider/decideOnSnapshot(_:operator:)``) and its
        /// report written on the decider's thread while chunk k is written and committed here.
        ///
        /// Why: deciding a chunk (a device lookup per row, the rules, the report) and writing one
        /// (the inserts, keys and triggers) cost about the same; one after the other they made the
        /// batch's time (`tools/bench-csv.sh`, docs/cli.md).
        ///
        /// Ends at the end of the file, at a stop, or at a ``BatchWriteConflict`` (the chunk rolled
        /// back); always with the report cut back to the last commit, so a row is in the report
        /// exactly when its chunk is in the store.
        mutating func pipelined(
            _ session: BatchSession,
            _ request: BatchRequest,
            progress: (BatchProgress) -> Void,
            shouldStop: () -> Bool
        ) throws {
            let decider = session.decider
            decider.forgetWriting()
            let stage = Stage(job: job, report: report, columns: columns, decider: decider, operator: `operator`)
            let reader = BatchChunkReader(
                path: inputPath,
                offset: job.nextOffset,
                line: job.nextLine,
                chunkSize: request.chunkSize,
                prepare: prepare,
                finish: { chunk in try stage.decide(&chunk) }
            )
            do {
                while !finished {
                    if shouldStop() {
                        stopped = true
                        break
                    }
                    let chunk = try reader.next()
                    guard let decided = chunk.decided, let next = chunk.job else {
                        preconditionFailure("the pipelined reader hands over decided chunks only")
                    }
                    try session.writeChunk(decided, job: next, finished: chunk.finished)
                    committed(chunk, job: next, progress: progress)
                }
            } catch {
                reader.stop()
                // The failure is what the caller must see; a resume cuts the report back anyway.
                try? report.truncate(to: job.reportOffset)
                throw error
            }
            reader.stop()
            // Rows of the chunk decided ahead and never committed (a stop; at the end, none).
            try report.truncate(to: job.reportOffset)
        }

        private mutating func committed(
            _ chunk: BatchChunkReader.Chunk,
            job next: BatchJob,
            progress: (BatchProgress) -> Void
        ) {
            job = next
            finished = chunk.finished
            rowsThisRun += chunk.count
            progress(
                BatchProgress(
                    rowsDone: rowsThisRun,
                    bytesDone: chunk.bytesDone,
                    bytesTotal: chunk.bytesTotal,
                    seconds: (ContinuousClock.now - started).seconds
                )
            )
        }
    }

    /// The pipelined run's side on the decider's thread (``BatchChunkReader``'s finish stage):
    /// decides each chunk, writes its report rows and carries the job's progress from chunk to
    /// chunk. Confined to that thread while the reader runs.
    final class Stage: @unchecked Sendable {
        private var job: BatchJob
        private let report: BatchReportWriter
        private let columns: Columns
        private let decider: BatchDecider
        private let `operator`: String?

        init(job: BatchJob, report: BatchReportWriter, columns: Columns, decider: BatchDecider, operator: String?) {
            self.job = job
            self.report = report
            self.columns = columns
            self.decider = decider
            self.operator = `operator`
        }

        func decide(_ chunk: inout BatchChunkReader.Chunk) throws {
            var decided = try decider.decideOnSnapshot(chunk.rows, operator: `operator`)
            try BatchBinder.record(chunk, decided.outcomes, columns: columns, job: &job, report: report)
            // The writer needs only the chunk's writes. Why drop the rest here: what is dropped is
            // freed on the thread that drops it last, and the writer's thread is the batch's
            // longest (perf: 3.75 s of CPU against the decider's 2.5 in a million-row batch);
            // freeing a chunk's records, rows and outcomes took a twentieth of it.
            decided.dropDecisions()
            chunk.records = []
            chunk.prepared = []
            chunk.rows = []
            chunk.decided = decided
            chunk.job = job
        }
    }

    /// A chunk's report rows and counts: one row per record, the store's outcome for a row it
    /// decided, the reader's refusal otherwise; the report written out before the chunk commits.
    static func record(
        _ chunk: BatchChunkReader.Chunk,
        _ outcomes: [BatchRowOutcome],
        columns: Columns,
        job: inout BatchJob,
        report: BatchReportWriter
    ) throws {
        // Why by index and straight from the store's outcome: zipping the records with their
        // preparations copied both per row, and each decided row was converted to a `RowOutcome`
        // and counted by comparing status strings; the reference counting and allocation of that
        // were the largest Swift cost on the decider thread (perf).
        var decided = 0
        for index in chunk.records.indices {
            let status: String
            var error: NBGWError?
            let deviceID: String?
            switch chunk.prepared[index] {
            case .failed(let failure):
                (status, error, deviceID) = (failure.status, failure.error, failure.deviceID)
            case .row:
                switch outcomes[decided] {
                case .bound(let id):
                    (status, deviceID) = ("bound", id)
                    job.bound += 1
                case .unchanged(let id):
                    (status, deviceID) = ("unchanged", id)
                    job.unchanged += 1
                case .refused(let refusal, let id): (status, error, deviceID) = ("failed", refusal, id)
                }
                decided += 1
            }
            let fields = chunk.records[index].fields
            report.append(
                line: chunk.records[index].line,
                status: status,
                code: error?.code.rawValue ?? "",
                message: error?.message ?? "",
                deviceID: deviceID ?? "",
                ref: columns.ref.flatMap { fields.indices.contains($0) ? fields[$0] : nil } ?? "",
                note: columns.note.flatMap { fields.indices.contains($0) ? fields[$0] : nil } ?? ""
            )
            if let error {
                job.failed += 1
                job.failuresByCode[error.code.rawValue, default: 0] += 1
            }
        }
        if let last = chunk.records.last {
            job.nextOffset = last.endOffset
            job.nextLine = last.nextLine
        }
        job.rowsDone += chunk.records.count
        // Report first, then commit: a committed chunk always has its report rows on file.
        job.reportOffset = try report.flush()
    }
}
