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
                // Why 16 MiB of page cache (SQLite's default is 2 MiB): a million-row batch touches
                // the device, binding and audit indexes all over; a bigger cache keeps their upper
                // levels resident. It stays well inside the batch's 64 MiB memory budget.
                try db.execute(sql: "PRAGMA cache_size = -16384")
                defer { try? db.execute(sql: "PRAGMA cache_size = -2000") }
                let session = try BatchSession(db: db, registry: registry, dryRun: dryRun, queueForCloud: queueForCloud)
                defer { session.rollbackIfOpen() }
                if dryRun { try session.begin() }
                return try body(session)
            }
        } catch {
            throw Registry.storeError(error, path: registry.path)
        }
    }
}

/// A CSV batch's side in the store, and the batch hot path: the seed's rules decided here for a
/// chunk of rows at a time (``bindChunk(_:operator:complete:)``), with prepared statements reused
/// for every row, cached account and home facts, and chunk transactions that commit the rows
/// together with the job's progress. The reader, the report and label resolution are the
/// caller's (Provisioning's `BatchBinder`); transactions never leave this type.
public final class BatchSession {
    let db: Database
    let registry: Registry
    public let dryRun: Bool
    private var inTransaction = false
    private var accounts: [String: BindFacts.AccountFacts?] = [:]
    private var homes: [String: (BindFacts.HomeFacts, String)?] = [:]
    private let deviceByID: PreparedStatement
    private let deviceByLabel: PreparedStatement
    private let insertSeen: PreparedStatement
    private let insertBindings: PreparedStatement
    private let insertBound: PreparedStatement
    private let insertOutbox: PreparedStatement?
    /// The chunk's writes, applied set-wise at commit (see ``flushWrites()``): devices met and not
    /// bound, packed as `row << 32 | line`, and devices to bind, grouped by account and home.
    private var pendingSeen: [Int64] = []
    private var pendingBinds: [PendingKey: PendingGroup] = [:]
    /// Devices met in the current chunk (not yet in batch_job_device) → their first line.
    private var chunkSeen: [Int64: Int] = [:]
    private var chunkNow: Int64 = 0
    private var chunkOperator: String?
    private var jobID: Int64 = 0

    struct PendingKey: Hashable {
        var account: Int64
        var home: Int64
    }

    struct PendingGroup {
        var accountName: String
        var homeName: String
        var rows: [Int64]
        /// The same devices packed with their lines (`row << 32 | line`), for their audit rows.
        var seen: [Int64] = []
        /// The devices' ids, for their outbox rows (only when the batch queues cloud binds).
        var deviceIDs: [String] = []

        mutating func append(row: Int64, seen packed: Int64, deviceID: String?) {
            rows.append(row)
            seen.append(packed)
            if let deviceID { deviceIDs.append(deviceID) }
        }
    }

    /// What the store knows about the device a row names.
    struct DeviceLookup {
        var row: Int64
        var deviceID: String
        var facts: BindFacts.DeviceFacts
        var existing: BindFacts.ExistingBinding?
        /// The line of this job that named the device before, from committed chunks.
        var firstLine: Int?
    }

    init(db: Database, registry: Registry, dryRun: Bool, queueForCloud: Bool) throws {
        self.db = db
        self.registry = registry
        self.dryRun = dryRun
        let select = """
            SELECT d.id, d.device_id, d.imei, d.product_id, b.account_id, b.home_id, h.name, s.line
            FROM device d LEFT JOIN binding b ON b.device_row = d.id LEFT JOIN home h ON h.id = b.home_id
            LEFT JOIN batch_job_device s ON s.job_id = ?2 AND s.device_row = d.id
            """
        deviceByID = try PreparedStatement(db, sql: select + " WHERE d.device_id = ?1")
        deviceByLabel = try PreparedStatement(db, sql: select + " WHERE d.label_code = ?1")
        // Why set-wise writes: per-row INSERTs cost more in statement overhead than in SQL work;
        // one statement per chunk over a JSON array of integers (json_each) does the same inserts,
        // and the schema's triggers and foreign keys still check every row. Integers only: pulling
        // fields out of JSON objects per row (->>) cost more than the inserts themselves.
        insertSeen = try PreparedStatement(
            db,
            sql: """
                INSERT INTO batch_job_device (device_row, job_id, line)
                SELECT value >> 32, ?1, value & 4294967295 FROM json_each(?2)
                """
        )
        // A bound device's row is its bind's audit (migration v12: read through `audit_trail`),
        // the same row that marks it met.
        insertBound = try PreparedStatement(
            db,
            sql: """
                INSERT INTO batch_job_device (device_row, job_id, line, bound_at, account_id, home_id, operator)
                SELECT value >> 32, ?1, value & 4294967295, ?2, ?3, ?4, ?5 FROM json_each(?6)
                """
        )
        insertBindings = try PreparedStatement(
            db,
            sql: """
                INSERT INTO binding (device_row, account_id, home_id, token_id, bound_at, source, operator)
                SELECT value, ?1, ?2, NULL, ?3, 'csv', ?4 FROM json_each(?5)
                """
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
        pendingSeen.removeAll()
        pendingBinds.removeAll()
        chunkSeen.removeAll()
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

    func account(_ name: String) throws -> BindFacts.AccountFacts? {
        if let cached = accounts[name] { return cached }
        let facts = try Row.fetchOne(db, sql: "SELECT id, role FROM account WHERE name = ?", arguments: [name]).map {
            BindFacts.AccountFacts(id: $0["id"], isOwner: $0["role"] as String == Account.Role.owner.rawValue)
        }
        accounts[name] = facts
        return facts
    }

    func home(_ name: String) throws -> BindFacts.HomeFacts? {
        if let cached = homes[name] { return cached?.0 }
        let facts = try Row.fetchOne(db, sql: "SELECT id, owner_account_id FROM home WHERE name = ?", arguments: [name])
            .map { row in
                BindFacts.HomeFacts(
                    id: row["id"],
                    ownerAccountID: row["owner_account_id"],
                    allowedProducts: try String.fetchAll(
                        db,
                        sql: "SELECT product_id FROM home_product WHERE home_id = ? ORDER BY product_id",
                        arguments: [row["id"] as Int64]
                    )
                )
            }
        homes[name] = facts.map { ($0, name) }
        return facts
    }

    func device(id: String) throws -> DeviceLookup? {
        try lookup(deviceByID, id)
    }

    func device(labelCode: String) throws -> DeviceLookup? {
        try lookup(deviceByLabel, labelCode)
    }

    private func lookup(_ statement: PreparedStatement, _ key: String) throws -> DeviceLookup? {
        defer { statement.reset() }
        statement.bind(1, key)
        statement.bind(2, jobID)
        guard try statement.step() else { return nil }
        return DeviceLookup(
            row: statement.int64(0),
            deviceID: statement.string(1) ?? "",
            facts: BindFacts.DeviceFacts(imei: statement.string(2) ?? "", productID: statement.string(3)),
            existing: statement.isNull(4)
                ? nil
                : BindFacts.ExistingBinding(
                    accountID: statement.int64(4),
                    homeID: statement.int64(5),
                    homeName: statement.string(6) ?? ""
                ),
            firstLine: statement.isNull(7) ? nil : Int(statement.int64(7))
        )
    }

    /// Records that `line` names the device; returns the earlier line when the file named it before
    /// (in a committed chunk of this job, or earlier in this chunk).
    func firstLine(ofDuplicate device: DeviceLookup, line: Int) -> Int? {
        if let first = device.firstLine ?? chunkSeen[device.row] { return first }
        chunkSeen[device.row] = line
        pendingSeen.append(device.row << 32 | Int64(line))
        return nil
    }

    /// Queues the binding and its audit (the device's `batch_job_device` row, now with the bind's
    /// facts) for the chunk's set-wise insert. `device` is the one ``firstLine(ofDuplicate:line:)``
    /// just recorded as met on `line`.
    func bind(
        _ device: DeviceLookup,
        account: BindFacts.AccountFacts,
        accountName: String,
        home: BindFacts.HomeFacts,
        homeName: String,
        operator: String?,
        line: Int,
        now: Int64
    ) {
        chunkNow = now
        chunkOperator = `operator`
        let packed = device.row << 32 | Int64(line)
        // The device was recorded as met a moment ago (decide: firstLine, then the rules, then
        // here); its row is written once, with the bind's facts.
        precondition(pendingSeen.last == packed, "bind(_:) must follow firstLine(ofDuplicate:line:) for the device")
        pendingSeen.removeLast()
        pendingBinds[
            PendingKey(account: account.id, home: home.id),
            default: PendingGroup(accountName: accountName, homeName: homeName, rows: [])
        ].append(row: device.row, seen: packed, deviceID: insertOutbox == nil ? nil : device.deviceID)
    }

    static func jsonArray(_ values: [Int64]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(values.count * 12 + 2)
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: String(value).utf8)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Applies the chunk's queued writes. A trigger refusing a row here means the Swift rules and
    /// the schema disagree: the chunk rolls back and the batch stops with the store's reason.
    func flushWrites() throws {
        if !pendingSeen.isEmpty {
            insertSeen.bind(1, jobID)
            insertSeen.bind(2, BatchSession.jsonArray(pendingSeen))
            try insertSeen.run()
        }
        for (key, group) in pendingBinds {
            let rows = BatchSession.jsonArray(group.rows)
            insertBindings.bind(1, key.account)
            insertBindings.bind(2, key.home)
            insertBindings.bind(3, chunkNow)
            insertBindings.bind(4, chunkOperator)
            insertBindings.bind(5, rows)
            try insertBindings.run()
            insertBound.bind(1, jobID)
            insertBound.bind(2, chunkNow)
            insertBound.bind(3, key.account)
            insertBound.bind(4, key.home)
            insertBound.bind(5, chunkOperator)
            insertBound.bind(6, BatchSession.jsonArray(group.seen))
            try insertBound.run()
            if let insertOutbox {
                for deviceID in group.deviceIDs {
                    let payload = OutboxPayload.bind(
                        .init(deviceID: deviceID, account: group.accountName, home: group.homeName)
                    )
                    insertOutbox.bind(1, IdempotencyKey.make())
                    insertOutbox.bind(2, deviceID)
                    insertOutbox.bind(3, payload.json)
                    insertOutbox.bind(4, chunkNow)
                    try insertOutbox.run()
                }
            }
        }
        pendingSeen.removeAll(keepingCapacity: true)
        pendingBinds.removeAll(keepingCapacity: true)
        chunkSeen.removeAll(keepingCapacity: true)
    }

    /// Decides a chunk of rows in one transaction, exactly as a single bind decides one
    /// (``BindingRules/evaluate(_:nowMillis:)`` over the same facts), plus what only a file has: a
    /// device named twice in it is `DUPLICATE_IN_FILE` (within the chunk and against the job's
    /// committed chunks). Then `complete` gets the outcomes, writes the report and returns the job's
    /// progress, which commits with the rows, so rows, report and progress never disagree.
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
            let now = nowMillis()
            var outcomes: [BatchRowOutcome] = []
            outcomes.reserveCapacity(rows.count)
            for row in rows {
                outcomes.append(try decide(row, operator: `operator`, now: now))
            }
            let progress = try complete(outcomes)
            try commitChunk(progress.job, finished: progress.finished)
            return outcomes
        } catch {
            rollbackIfOpen()
            throw error
        }
    }

    /// One row: the device, a repeat in the file, the account and home facts, the rules; a bind
    /// is queued for the chunk's set-wise insert.
    private func decide(_ row: BatchRow, operator: String?, now: Int64) throws -> BatchRowOutcome {
        var deviceID: String?
        do {
            let lookup: DeviceLookup?
            switch row.device {
            case .id(let id):
                deviceID = id
                lookup = try device(id: id)
            case .labelCode(let code):
                guard let found = try device(labelCode: code) else { throw LabelReference.unknownError(code: code) }
                lookup = found
            }
            if let lookup {
                deviceID = lookup.deviceID
                if let first = firstLine(ofDuplicate: lookup, line: row.line) {
                    throw NBGWError(
                        .duplicateInFile,
                        "device \(lookup.deviceID) was already named on line \(first) of this file; list each device once"
                    )
                }
            }
            let account = try account(row.accountName)
            let home = try home(row.homeName)
            let facts = BindFacts(
                deviceID: deviceID ?? "",
                accountName: row.accountName,
                homeName: row.homeName,
                account: account,
                home: home,
                device: lookup?.facts,
                existing: lookup?.existing,
                token: .notGiven
            )
            switch try BindingRules.evaluate(facts, nowMillis: now) {
            case .unchanged:
                return .unchanged(deviceID: deviceID ?? "")
            case .bind:
                bind(
                    lookup!,
                    account: account!,
                    accountName: row.accountName,
                    home: home!,
                    homeName: row.homeName,
                    operator: `operator`,
                    line: row.line,
                    now: now
                )
                return .bound(deviceID: deviceID ?? "")
            }
        } catch let error as NBGWError {
            return .refused(error, deviceID: deviceID)
        }
    }

    /// Commits the chunk with the job's progress, so rows and progress can never disagree.
    func commitChunk(_ job: BatchJob, finished: Bool) throws {
        try flushWrites()
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
        if !dryRun { try commit() }
    }

    private func commit() throws {
        try db.execute(sql: "COMMIT")
        inTransaction = false
    }
}
