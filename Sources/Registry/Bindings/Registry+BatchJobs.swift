import Foundation
import GRDB
import NBGWCore

/// Batch jobs read back by directory (the console keeps its uploads in one), and the one change a
/// job's owner makes besides running it: giving it up once its files are gone.
extension Registry.Bindings {
    /// The jobs whose input file lies inside `directory` (an absolute path, as the jobs store it:
    /// symbolic links resolved), newest first, at most `limit`.
    public func batchJobs(inDirectory directory: String, limit: Int) throws(NBGWError) -> [BatchJobRecord] {
        try registry.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM batch_job WHERE substr(input_path, 1, length(?1)) = ?1 ORDER BY id DESC LIMIT ?2",
                arguments: [Self.prefix(directory), limit]
            ).map(Self.record)
        }
    }

    /// What a sweep of `directory` must know: the jobs whose input or report is one of `paths`, and
    /// every open job whose input lies inside `directory` (whatever is on disk).
    public func batchJobs(
        referencing paths: [String],
        orOpenInDirectory directory: String
    ) throws(NBGWError) -> [BatchJobRecord] {
        let list = String(decoding: (try? JSONEncoder().encode(paths)) ?? Data("[]".utf8), as: UTF8.self)
        return try registry.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM batch_job
                    WHERE input_path IN (SELECT value FROM json_each(?1))
                        OR report_path IN (SELECT value FROM json_each(?1))
                        OR (substr(input_path, 1, length(?2)) = ?2 AND finished_at IS NULL AND abandoned_at IS NULL)
                    ORDER BY id
                    """,
                arguments: [list, Self.prefix(directory)]
            ).map(Self.record)
        }
    }

    /// The job `id`, nil when there is none.
    public func batchJob(id: Int64) throws(NBGWError) -> BatchJobRecord? {
        try registry.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM batch_job WHERE id = ?", arguments: [id]).map(Self.record)
        }
    }

    /// Marks the open job `id` abandoned (nothing will resume it: its upload is gone); its rows and
    /// audit stay. False when it was not open.
    @discardableResult
    public func abandonBatchJob(id: Int64) throws(NBGWError) -> Bool {
        let now = registry.nowMillis()
        return try registry.write { db in
            try db.execute(
                sql: """
                    UPDATE batch_job SET abandoned_at = ?1, updated_at = ?1
                    WHERE id = ?2 AND finished_at IS NULL AND abandoned_at IS NULL
                    """,
                arguments: [now, id]
            )
            return db.changesCount > 0
        }
    }

    /// `directory` with one trailing slash: a prefix that matches its files, not a sibling's.
    static func prefix(_ directory: String) -> String {
        directory.hasSuffix("/") ? directory : directory + "/"
    }

    static func record(_ row: Row) -> BatchJobRecord {
        func date(_ column: String) -> Date? {
            (row[column] as Int64?).map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
        }
        let codes = (row["failures_by_code"] as String).data(using: .utf8).flatMap {
            try? JSONDecoder().decode([String: Int].self, from: $0)
        }
        return BatchJobRecord(
            id: row["id"],
            inputPath: row["input_path"],
            inputSize: row["input_size"],
            reportPath: row["report_path"],
            defaultAccount: row["default_account"],
            defaultHome: row["default_home"],
            operator: row["operator"],
            startedAt: date("started_at") ?? Date(timeIntervalSince1970: 0),
            updatedAt: date("updated_at") ?? Date(timeIntervalSince1970: 0),
            finishedAt: date("finished_at"),
            abandonedAt: date("abandoned_at"),
            nextOffset: row["next_offset"],
            nextLine: row["next_line"],
            rowsDone: row["rows_done"],
            bound: row["bound"],
            unchanged: row["unchanged"],
            failed: row["failed"],
            failuresByCode: codes ?? [:]
        )
    }
}
