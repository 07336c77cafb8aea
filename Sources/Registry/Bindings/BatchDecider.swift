import DeviceIdentity
import GRDB
import NBGWCore
import Pairing

/// Decides a CSV batch's rows a chunk at a time, exactly as a single bind decides one
/// (``BindingRules/evaluate(_:nowMillis:)`` over the same facts), plus what only a file has: a
/// device named twice in it is `DUPLICATE_IN_FILE`. Writes nothing itself: the outcomes and the
/// writes they call for come back as a ``BatchDecidedChunk`` for ``BatchSession/writeChunk(_:job:finished:)``.
///
/// Two ways to read the store:
/// - **Under the write lock** (``BatchSession/bindChunk(_:operator:complete:)``): the chunk is
///   decided and written in one transaction; the store's answer is final.
/// - **On a snapshot** (``decideOnSnapshot(_:operator:)``), a reader connection of the pool, while
///   the writer connection still writes the chunk before. The snapshot must hold every chunk
///   before that one committed, and the chunk being written is added from memory (its devices met
///   are what ``BatchDecidedChunk`` calls `met`): the caller decides chunk k+1 only once the writer
///   has taken chunk k, which it does only after committing chunk k−1. Decisions are then those of
///   the serial order unless another writer changes a row in between; a decision that writes is
///   then refused by the schema when the chunk is written (``BatchWriteConflict``), and a refusal
///   or an unchanged row is as if the row had come first.
///
/// Why decide on a snapshot at all: writing a chunk (SQLite's inserts, keys and triggers) and
/// deciding the next (a device lookup per row, the rules, the report) cost about the same (3.7 and
/// 3.3 s for a million rows of `tools/bench-csv.sh`'s mix on this 2-core machine); one after the
/// other on one connection they made the batch's time.
///
/// Used by one thread at a time (the batch's decider thread, then the writer's after a conflict).
public final class BatchDecider: @unchecked Sendable {
    let registry: Registry
    let jobID: Int64
    let queueForCloud: Bool
    private var accounts: [String: BindFacts.AccountFacts?] = [:]
    private var homes: [String: BindFacts.HomeFacts?] = [:]
    /// The devices the last chunk decided on a snapshot met (its `met`), while it is being written.
    private var writing: [Int64: Int] = [:]

    /// The device lookups of ``lookUp(_:db:)``, by size (``BatchRowInsert/sizes``): the rows' keys
    /// (`?2`, `?4`, …, with their indexes in the chunk, `?3`, `?5`, …) joined with the device, its
    /// binding and home, and this job's `batch_job_device` row (`?1`, the job).
    ///
    /// Why `CROSS JOIN`: it keeps the keys the outer loop, which SQLite then reads straight from
    /// the VALUES list (a co-routine); with a plain `JOIN` it first copies the list into a
    /// temporary table (`MATERIALIZE k` in the query plan). The lookups of a million label keys
    /// took 2.55 s instead of 2.80 from Python, the plan the only difference.
    static func lookup(by column: String) -> [String] {
        BatchRowInsert.sizes.map { rows in
            """
            WITH k(key, i) AS (VALUES \(BatchRowInsert.tuples(rows, arity: 2, after: 1)))
            SELECT k.i, d.id, d.device_id, d.imei, d.product_id, b.account_id, b.home_id, h.name, s.line
            FROM k CROSS JOIN device d ON d.\(column) = k.key
            LEFT JOIN binding b ON b.device_row = d.id LEFT JOIN home h ON h.id = b.home_id
            LEFT JOIN batch_job_device s ON s.job_id = ?1 AND s.device_row = d.id
            """
        }
    }
    static let byID = lookup(by: "device_id")
    static let byLabel = lookup(by: "label_code")
    static let byIMEI = lookup(by: "imei")

    init(registry: Registry, jobID: Int64, queueForCloud: Bool) {
        self.registry = registry
        self.jobID = jobID
        self.queueForCloud = queueForCloud
    }

    /// Decides `rows` on a snapshot of a reader connection, the chunk the writer is writing taken
    /// from memory (see the type's comment for when a caller may call this).
    public func decideOnSnapshot(_ rows: [BatchRow], operator: String?) throws(NBGWError) -> BatchDecidedChunk {
        do {
            let writing = self.writing
            let decided = try registry.pool.read { db in
                try decide(rows, db: db, operator: `operator`, writing: writing)
            }
            self.writing = decided.met
            return decided
        } catch {
            throw Registry.storeError(error, path: registry.path)
        }
    }

    /// Forgets the chunk decided last on a snapshot: it was written, or refused and rolled back.
    public func forgetWriting() { writing = [:] }

    /// Decides `rows` on `db`. `writing`: devices of a chunk not yet visible in `db`.
    func decide(
        _ rows: [BatchRow],
        db: Database,
        operator: String?,
        writing: [Int64: Int]
    ) throws
        -> BatchDecidedChunk
    {
        let lookups = try lookUp(rows, db: db)
        var chunk = BatchDecidedChunk()
        chunk.now = registry.nowMillis()
        chunk.operator = `operator`
        chunk.outcomes.reserveCapacity(rows.count)
        chunk.met.reserveCapacity(rows.count)
        var last = LastFacts()
        for (row, lookup) in zip(rows, lookups) {
            chunk.outcomes.append(try decide(row, lookup, db: db, writing: writing, last: &last, into: &chunk))
        }
        return chunk
    }

    /// What the store knows about each row's device (nil: no such device), in the rows' order.
    ///
    /// Why in statements of up to 256 rows rather than one per row: a lookup's SQL work is four
    /// index searches, and a statement per row spent as much again opening and closing its cursors
    /// and resetting. The decider's thread took 3.1 s of CPU instead of 4.0 (perf) in a million-row
    /// batch, and the batch 4.83 s instead of 5.23 (median of 4 alternating runs) on two cores.
    func lookUp(_ rows: [BatchRow], db: Database) throws -> [DeviceLookup?] {
        var found = [DeviceLookup?](repeating: nil, count: rows.count)
        var byID: [Int] = []
        var byLabel: [Int] = []
        var byIMEI: [Int] = []
        for (index, row) in rows.enumerated() {
            switch row.device {
            case .id: byID.append(index)
            case .labelCode: byLabel.append(index)
            case .imei: byIMEI.append(index)
            }
        }
        try lookUp(byID, of: rows, statements: BatchDecider.byID, db: db, into: &found)
        try lookUp(byLabel, of: rows, statements: BatchDecider.byLabel, db: db, into: &found)
        try lookUp(byIMEI, of: rows, statements: BatchDecider.byIMEI, db: db, into: &found)
        return found
    }

    private func lookUp(
        _ indexes: [Int],
        of rows: [BatchRow],
        statements: [String],
        db: Database,
        into found: inout [DeviceLookup?]
    ) throws {
        var done = 0
        for (size, sql) in zip(BatchRowInsert.sizes, statements) where indexes.count - done >= size {
            let statement = try PreparedStatement.cached(db, sql)
            defer { statement.reset() }
            while indexes.count - done >= size {
                statement.bind(1, jobID)
                var parameter: Int32 = 2
                for index in indexes[done..<(done + size)] {
                    switch rows[index].device {
                    case .id(let key), .labelCode(let key), .imei(let key): statement.bind(parameter, key)
                    }
                    statement.bind(parameter + 1, Int64(index))
                    parameter += 2
                }
                while try statement.step() {
                    found[Int(statement.int64(0))] = DeviceLookup(
                        row: statement.int64(1),
                        deviceID: statement.string(2) ?? "",
                        facts: BindFacts.DeviceFacts(imei: statement.string(3) ?? "", productID: statement.string(4)),
                        existing: statement.isNull(5)
                            ? nil
                            : BindFacts.ExistingBinding(
                                accountID: statement.int64(5),
                                homeID: statement.int64(6),
                                homeName: statement.string(7) ?? ""
                            ),
                        firstLine: statement.isNull(8) ? nil : Int(statement.int64(8))
                    )
                }
                statement.reset()
                done += size
            }
        }
    }

    /// One row: the device, a repeat in the file, the account and home facts, the rules; a bind
    /// is added to the chunk's writes.
    private func decide(
        _ row: BatchRow,
        _ lookup: DeviceLookup?,
        db: Database,
        writing: [Int64: Int],
        last: inout LastFacts,
        into chunk: inout BatchDecidedChunk
    ) throws -> BatchRowOutcome {
        var deviceID: String?
        // The device's `batch_job_device` row once this line is the first to name it: written as
        // met, or with the bind's facts when the rules bind it.
        var met: Int64?
        do {
            switch row.device {
            case .id(let id):
                deviceID = id
            case .labelCode(let code):
                guard lookup != nil else { throw LabelReference.unknownError(code: code) }
            case .imei(let digits):
                guard lookup != nil else { throw IMEI.unknownError(digits: digits) }
            }
            if let lookup {
                deviceID = lookup.deviceID
                if let first = lookup.firstLine ?? writing[lookup.row] ?? chunk.met[lookup.row] {
                    throw NBGWError(
                        .duplicateInFile,
                        "device \(lookup.deviceID) was already named on line \(first) of this file; list each device once"
                    )
                }
                chunk.met[lookup.row] = row.line
                met = lookup.row << 32 | Int64(row.line)
            }
            let account = try account(row.accountName, db: db, last: &last)
            let home = try home(row.homeName, db: db, last: &last)
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
            switch try BindingRules.evaluate(facts, nowMillis: chunk.now) {
            case .unchanged:
                if let met { chunk.seen.append(met) }
                return .unchanged(deviceID: deviceID ?? "")
            case .bind:
                // The rules bind only a device the store has, for an account and home it has.
                let key = BatchDecidedChunk.Key(account: account!.id, home: home!.id)
                chunk.binds[key, default: .init(accountName: row.accountName, homeName: row.homeName)].add(
                    row: lookup!.row,
                    met: met!,
                    deviceID: queueForCloud ? lookup!.deviceID : nil
                )
                return .bound(deviceID: deviceID ?? "")
            }
        } catch let error as NBGWError {
            if let met { chunk.seen.append(met) }
            return .refused(error, deviceID: deviceID)
        }
    }

    /// The facts of the account and home the chunk's previous row named.
    ///
    /// Why: a lookup per row in the decider's dictionaries (hashing the name, and a run-time
    /// exclusivity check on each class property) costs more than comparing the name with the
    /// previous row's, and a batch nearly always names one account and home throughout.
    struct LastFacts {
        var account: (name: String, facts: BindFacts.AccountFacts?)?
        var home: (name: String, facts: BindFacts.HomeFacts?)?
    }

    /// The account's facts: the previous row's when it named the same account, else from the
    /// decider's cache or the store.
    func account(_ name: String, db: Database, last: inout LastFacts) throws -> BindFacts.AccountFacts? {
        if let previous = last.account, previous.name == name { return previous.facts }
        let facts = try account(name, db: db)
        last.account = (name, facts)
        return facts
    }

    func home(_ name: String, db: Database, last: inout LastFacts) throws -> BindFacts.HomeFacts? {
        if let previous = last.home, previous.name == name { return previous.facts }
        let facts = try home(name, db: db)
        last.home = (name, facts)
        return facts
    }

    func account(_ name: String, db: Database) throws -> BindFacts.AccountFacts? {
        if let cached = accounts[name] { return cached }
        let facts = try Row.fetchOne(db, sql: "SELECT id, role FROM account WHERE name = ?", arguments: [name]).map {
            BindFacts.AccountFacts(id: $0["id"], isOwner: $0["role"] as String == Account.Role.owner.rawValue)
        }
        accounts[name] = facts
        return facts
    }

    func home(_ name: String, db: Database) throws -> BindFacts.HomeFacts? {
        if let cached = homes[name] { return cached }
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
        homes[name] = facts
        return facts
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
}
