import Foundation
import GRDB
import NBGWCore
import Pairing

extension Registry {
    /// Where a batch's input is and what it defaults to; identifies the job to resume.
    public struct BatchInput: Sendable {
        public var path: String
        public var size: Int64
        public var mtimeNanoseconds: Int64
        public var reportPath: String
        public var defaultAccount: String?
        public var defaultHome: String?
        public var `operator`: String?
        /// Where the first data record starts (just after the header) and its physical line.
        public var firstRecordOffset: Int64
        public var firstRecordLine: Int

        public init(
            path: String,
            size: Int64,
            mtimeNanoseconds: Int64,
            reportPath: String,
            defaultAccount: String?,
            defaultHome: String?,
            operator: String?,
            firstRecordOffset: Int64,
            firstRecordLine: Int
        ) {
            self.path = path
            self.size = size
            self.mtimeNanoseconds = mtimeNanoseconds
            self.reportPath = reportPath
            self.defaultAccount = defaultAccount
            self.defaultHome = defaultHome
            self.operator = `operator`
            self.firstRecordOffset = firstRecordOffset
            self.firstRecordLine = firstRecordLine
        }
    }
}

extension Registry.Bindings {
    /// Runs a batch on the store's writer connection. The body opens the job and hands the store
    /// one chunk of rows at a time (``BatchSession/bindChunk(_:operator:complete:)``): each chunk
    /// is one transaction (for a dry run, everything is one transaction, rolled back at the end).
    ///
    /// - Parameter queueForCloud: also queue a cloud `bind` outbox row for every bound device, in
    ///   the same transaction (clouds that sync).
    public func withBatchSession<T>(
        dryRun: Bool,
        queueForCloud: Bool = false,
        _ body: (BatchSession) throws -> T
    )
        throws(NBGWError) -> T
    {
        do {
            return try registry.pool.writeWithoutTransaction { db in
                // Why 12 MiB of page cache (SQLite's default is 2 MiB): a million-row batch touches
                // the device, binding and audit indexes all over; a bigger cache keeps their upper
                // levels resident. Why not 16 MiB as before the pipelined batch: its reader
                // connection and the chunk in flight took the peak to 63.6 MiB (64.9 MiB with JSON
                // payloads), against a 64 MiB budget; at 12 MiB 59.9 / 60.6 MiB and the same speed
                // (tools/bench-csv.sh, 1 M rows: 4.78 s at 16 MiB, 4.65 s at 12 MiB, same hour).
                try db.execute(sql: "PRAGMA cache_size = -12288")
                defer { try? db.execute(sql: "PRAGMA cache_size = -2000") }
                let session = try BatchSession(db: db, registry: registry, dryRun: dryRun, queueForCloud: queueForCloud)
                defer { session.rollbackIfOpen() }
                if !dryRun {
                    // Only a speed-up: when the checkpoint connection cannot be opened, the batch
                    // runs as before, its commits checkpointing (the setting is changed last, so a
                    // failure leaves it as it was).
                    session.checkpoints = try? BatchCheckpoints(registry: registry, writer: db)
                }
                defer { session.checkpoints?.finish(db) }
                if dryRun { try session.begin() }
                return try body(session)
            }
        } catch {
            throw Registry.storeError(error, path: registry.path)
        }
    }
}

/// A CSV batch's side in the store, and the batch hot path's writer: chunk transactions that
/// write a decided chunk's rows set-wise and commit them together with the job's progress. The
/// rows are decided by a ``BatchDecider`` (the seed's rules, cached account and home facts,
/// prepared statements); the reader, the report and label resolution are the caller's
/// (Provisioning's `BatchBinder`); transactions never leave this type.
public final class BatchSession {
    let db: Database
    let registry: Registry
    public let dryRun: Bool
    let queueForCloud: Bool
    private var inTransaction = false
    private let insertSeen: BatchRowInsert
    private let insertBindings: BatchRowInsert
    private let insertBound: BatchRowInsert
    private let insertOutbox: PreparedStatement?
    private var jobID: Int64 = 0
    /// The batch's checkpoints, off its commits (``BatchCheckpoints``); nil for a dry run.
    var checkpoints: BatchCheckpoints?
    private var openedDecider: BatchDecider?
    /// The job's decider, made by ``openJob(_:restart:)``; asking before the job is open is a
    /// programming error.
    public var decider: BatchDecider {
        guard let openedDecider else { preconditionFailure("BatchSession.decider asked for before openJob") }
        return openedDecider
    }

    init(db: Database, registry: Registry, dryRun: Bool, queueForCloud: Bool) throws {
        self.db = db
        self.registry = registry
        self.dryRun = dryRun
        self.queueForCloud = queueForCloud
        // Why set-wise writes: per-row INSERTs cost more in statement overhead than in SQL work;
        // a few statements per chunk (BatchRowInsert) do the same inserts, and the schema's
        // triggers and foreign keys still check every row.
        insertSeen = try BatchRowInsert(
            db,
            "INSERT INTO batch_job_device (device_row, job_id, line) SELECT column1, ?1, column2",
            constants: 1,
            arity: 2
        )
        // A bound device's row is its bind's audit (migration v12: read through `audit_trail`),
        // the same row that marks it met.
        insertBound = try BatchRowInsert(
            db,
            """
            INSERT INTO batch_job_device (device_row, job_id, line, bound_at, account_id, home_id, operator)
            SELECT column1, ?1, column2, ?2, ?3, ?4, ?5
            """,
            constants: 5,
            arity: 2
        )
        insertBindings = try BatchRowInsert(
            db,
            """
            INSERT INTO binding (device_row, account_id, home_id, token_id, bound_at, source, operator)
            SELECT column1, ?1, ?2, NULL, ?3, 'csv', ?4
            """,
            constants: 4,
            arity: 1
        )
        // The cloud bind of each bound device, queued with it: the payload from the outbox's one
        // encoder (OutboxPayload), the key from its one generator (IdempotencyKey), a row at a time.
        insertOutbox =
            queueForCloud
            ? try PreparedStatement(
                db,
                sql: """
                    INSERT INTO cloud_outbox (idempotency_key, operation, subject, payload, created_at, next_attempt_at)
                    VALUES (?1, 'bind', ?2, ?3, ?4, ?4)
                    """
            ) : nil
    }

    /// Wall-clock milliseconds from the registry's injected clock.
    func nowMillis() -> Int64 { registry.nowMillis() }

    func begin() throws {
        guard !inTransaction else { return }
        // IMMEDIATE: take the write lock up front (see Registry.write); the busy timeout applies.
        try db.execute(sql: "BEGIN IMMEDIATE")
        inTransaction = true
    }

    func rollbackIfOpen() {
        if inTransaction {
            try? db.execute(sql: "ROLLBACK")
            inTransaction = false
        }
    }

    /// Finds the unfinished job for this input (to resume it) or starts a new one.
    /// A changed input file with an unfinished job is refused unless `restart` abandons the old job.
    public func openJob(_ input: Registry.BatchInput, restart: Bool) throws -> BatchJob {
        let ownTransaction = !inTransaction
        if ownTransaction { try begin() }
        let now = nowMillis()
        if let row = try Row.fetchOne(
            db,
            sql: "SELECT * FROM batch_job WHERE input_path = ? AND finished_at IS NULL AND abandoned_at IS NULL",
            arguments: [input.path]
        ) {
            let sameFile =
                row["input_size"] as Int64 == input.size && row["input_mtime_ns"] as Int64 == input.mtimeNanoseconds
            if sameFile && !restart {
                jobID = row["id"]
                openedDecider = BatchDecider(registry: registry, jobID: jobID, queueForCloud: queueForCloud)
                if ownTransaction { try commit() }
                return BatchSession.job(row, resumed: true)
            }
            if !sameFile && !restart {
                rollbackIfOpen()
                throw NBGWError(
                    .invalidArgument,
                    "batch job #\(row["id"] as Int64) for \(input.path) stopped at line \(row["next_line"] as Int64) "
                        + "but the file has changed since (size or modification time); restore the file to resume, "
                        + "or pass --restart to abandon that job and start over"
                )
            }
            try db.execute(
                sql: "UPDATE batch_job SET abandoned_at = ?, updated_at = ? WHERE id = ?",
                arguments: [now, now, row["id"] as Int64]
            )
        }
        try db.execute(
            sql: """
                INSERT INTO batch_job (input_path, input_size, input_mtime_ns, report_path, default_account,
                    default_home, operator, started_at, updated_at, next_offset, next_line)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                input.path, input.size, input.mtimeNanoseconds, input.reportPath, input.defaultAccount,
                input.defaultHome, input.operator, now, now, input.firstRecordOffset, input.firstRecordLine,
            ]
        )
        jobID = db.lastInsertedRowID
        openedDecider = BatchDecider(registry: registry, jobID: jobID, queueForCloud: queueForCloud)
        let row = try Row.fetchOne(db, sql: "SELECT * FROM batch_job WHERE id = ?", arguments: [jobID])!
        if ownTransaction { try commit() }
        return BatchSession.job(row, resumed: false)
    }

    static func job(_ row: Row, resumed: Bool) -> BatchJob {
        let codes = (row["failures_by_code"] as String).data(using: .utf8).flatMap {
            try? JSONDecoder().decode([String: Int].self, from: $0)
        }
        return BatchJob(
            id: row["id"],
            inputPath: row["input_path"],
            inputSize: row["input_size"],
            inputMtimeNanoseconds: row["input_mtime_ns"],
            reportPath: row["report_path"],
            defaultAccount: row["default_account"],
            defaultHome: row["default_home"],
            nextOffset: row["next_offset"],
            nextLine: row["next_line"],
            reportOffset: row["report_offset"],
            rowsDone: row["rows_done"],
            bound: row["bound"],
            unchanged: row["unchanged"],
            failed: row["failed"],
            failuresByCode: codes ?? [:],
            resumed: resumed
        )
    }

    /// Binds a device met, packed as `row << 32 | line` (``BatchDecidedChunk/seen``), to
    /// parameters `parameter` (the device's row) and `parameter + 1` (the line).
    static func bindPacked(_ packed: Int64, _ statement: PreparedStatement, _ parameter: Int32) {
        statement.bind(parameter, packed >> 32)
        statement.bind(parameter + 1, packed & 0xFFFF_FFFF)
    }

    /// Applies a decided chunk's writes. A trigger or key refusing a row here means the rules and
    /// the schema disagree (decided under the write lock) or the chunk went stale (decided on a
    /// snapshot): either way the chunk rolls back.
    func write(_ chunk: BatchDecidedChunk) throws {
        let jobID = self.jobID
        try insertSeen.run(count: chunk.seen.count) {
            $0.bind(1, jobID)
        } row: { statement, index, parameter in
            BatchSession.bindPacked(chunk.seen[index], statement, parameter)
        }
        for (key, group) in chunk.binds {
            try insertBindings.run(count: group.rows.count) { statement in
                statement.bind(1, key.account)
                statement.bind(2, key.home)
                statement.bind(3, chunk.now)
                statement.bind(4, chunk.operator)
            } row: { statement, index, parameter in
                statement.bind(parameter, group.rows[index])
            }
            try insertBound.run(count: group.seen.count) { statement in
                statement.bind(1, jobID)
                statement.bind(2, chunk.now)
                statement.bind(3, key.account)
                statement.bind(4, key.home)
                statement.bind(5, chunk.operator)
            } row: { statement, index, parameter in
                BatchSession.bindPacked(group.seen[index], statement, parameter)
            }
            if let insertOutbox {
                for deviceID in group.deviceIDs {
                    let payload = OutboxPayload.bind(
                        .init(deviceID: deviceID, account: group.accountName, home: group.homeName)
                    )
                    insertOutbox.bind(1, IdempotencyKey.make())
                    insertOutbox.bind(2, deviceID)
                    insertOutbox.bind(3, payload.json)
                    insertOutbox.bind(4, chunk.now)
                    try insertOutbox.run()
                }
            }
        }
    }

    /// Decides a chunk of rows under the write lock and writes it in the same transaction
    /// (``BatchDecider``: exactly as a single bind decides one, plus `DUPLICATE_IN_FILE`). Then
    /// `complete` gets the outcomes, writes the report and returns the job's progress, which
    /// commits with the rows, so rows, report and progress never disagree.
    ///
    /// Why the caller reads and parses the rows first: the store's write lock is held only while
    /// the rows are decided and written, not while the file is read.
    ///
    /// - Throws: store failures only (disk full, I/O, a trigger refusing what the rules allowed):
    ///   the chunk rolls back and the batch stops; every rule refusal is an outcome.
    public func bindChunk(
        _ rows: [BatchRow],
        operator: String?,
        complete: ([BatchRowOutcome]) throws -> (job: BatchJob, finished: Bool)
    ) throws -> [BatchRowOutcome] {
        do {
            try begin()
            let chunk = try decider.decide(rows, db: db, operator: `operator`, writing: [:])
            let progress = try complete(chunk.outcomes)
            try write(chunk)
            try commitChunk(progress.job, finished: progress.finished)
            return chunk.outcomes
        } catch {
            rollbackIfOpen()
            throw error
        }
    }

    /// Writes a chunk decided on a snapshot (``BatchDecider/decideOnSnapshot(_:operator:)``) and
    /// commits it with the job's progress `job` (the report already holds the chunk's rows).
    ///
    /// - Throws: ``BatchWriteConflict`` when the store refuses a row the snapshot allowed (another
    ///   writer came between; the chunk is rolled back and must be decided again under the write
    ///   lock), any other store failure as it is.
    public func writeChunk(_ chunk: BatchDecidedChunk, job: BatchJob, finished: Bool) throws {
        precondition(!dryRun, "a dry run decides under the write lock (bindChunk), in one transaction")
        do {
            try begin()
            try write(chunk)
            try commitChunk(job, finished: finished)
        } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_CONSTRAINT {
            rollbackIfOpen()
            throw BatchWriteConflict(reason: error.message ?? "\(error)")
        } catch {
            rollbackIfOpen()
            throw error
        }
    }

    /// Commits the chunk's progress, so rows and progress can never disagree.
    func commitChunk(_ job: BatchJob, finished: Bool) throws {
        let codes = String(decoding: try JSONEncoder().encode(job.failuresByCode), as: UTF8.self)
        let now = nowMillis()
        try db.execute(
            sql: """
                UPDATE batch_job SET next_offset = ?, next_line = ?, report_offset = ?, rows_done = ?, bound = ?,
                    unchanged = ?, failed = ?, failures_by_code = ?, updated_at = ?, finished_at = ?
                WHERE id = ?
                """,
            arguments: [
                job.nextOffset, job.nextLine, job.reportOffset, job.rowsDone, job.bound, job.unchanged, job.failed,
                codes, now, finished ? now : nil, jobID,
            ]
        )
        if !dryRun {
            try commit()
            checkpoints?.afterCommit(db, last: finished)
        }
    }

    private func commit() throws {
        try db.execute(sql: "COMMIT")
        inTransaction = false
    }
}
