import Cloud
import DeviceIdentity
import Foundation
import Pairing
import Registry

/// `nbgw bind --csv`: binds every row of a CSV file through the same parser and the same rules
/// as a single bind (``QRPayloadParser``, ``BindingRules/evaluate(_:nowMillis:)``), streaming the
/// input and the report, committing in chunks together with the job's progress so that a rerun
/// after `kill -9` resumes exactly where the last commit ended.
///
/// Labels resolve from the store when the configured cloud issued them (modules registered
/// through this gateway); with an HTTP cloud every bound row also queues its cloud bind in the
/// outbox, in the same chunk transaction.
public struct BatchBinder: Sendable {
    public let registry: Registry
    public let cloud: any CloudService
    private let labelBase: String

    public init(registry: Registry, cloud: any CloudService) {
        self.registry = registry
        self.cloud = cloud
        self.labelBase = cloud.labelBase.lowercased()
    }

    /// Column names the batch understands; others are ignored with one warning.
    static let knownColumns: Set<String> = ["qr", "account", "home", "ref", "note"]

    struct Columns {
        var qr: Int
        var account: Int?
        var home: Int?
        var ref: Int?
        var note: Int?
        var ignored: [String]
    }

    /// Runs (or resumes) the batch.
    ///
    /// - Parameters:
    ///   - progress: called after every chunk.
    ///   - shouldStop: polled between chunks; when true the run stops at that boundary, committed.
    public func run(
        _ request: BatchRequest,
        progress: (BatchProgress) -> Void = { _ in },
        shouldStop: () -> Bool = { false }
    ) throws(NBGWError) -> BatchSummary {
        let started = ContinuousClock.now
        let inputPath = URL(fileURLWithPath: request.inputPath).standardizedFileURL.resolvingSymlinksInPath().path
        var info = stat()
        guard stat(inputPath, &info) == 0 else {
            throw NBGWError(
                .invalidArgument,
                "cannot read \(request.inputPath): \(String(cString: strerror(errno))); check the path"
            )
        }
        let header: CSVRecord
        let columns: Columns
        do {
            let reader = try CSVReader(path: inputPath)
            guard let first = try reader.next() else {
                throw NBGWError(
                    .missingField,
                    "\(request.inputPath) is empty; its first line must name the columns (qr,…)"
                )
            }
            header = first
            columns = try BatchBinder.columns(header, path: request.inputPath)
        } catch let error as NBGWError {
            throw error
        } catch {
            throw NBGWError(.invalidArgument, "\(error)")
        }
        let input = Registry.BatchInput(
            path: inputPath,
            size: Int64(info.st_size),
            mtimeNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            reportPath: request.reportPath ?? (request.inputPath + ".report.csv"),
            defaultAccount: request.defaultAccount,
            defaultHome: request.defaultHome,
            operator: request.operator,
            firstRecordOffset: header.endOffset,
            firstRecordLine: header.nextLine
        )
        return try registry.withBatchWriter(dryRun: request.dryRun, syncBindings: cloud.syncsBindings) { writer in
            if request.dryRun { try writer.begin() }
            var job = try writer.openJob(input, restart: request.restart || request.dryRun)
            let report = try BatchReportWriter(path: job.reportPath, resumeAt: job.resumed ? job.reportOffset : nil)
            let reader = try CSVReader(path: inputPath, offset: job.nextOffset, line: job.nextLine)
            let resumedFrom = job.resumed ? job.nextLine : nil
            var rowsThisRun = 0
            var stopped = false
            var finished = false
            let account = request.defaultAccount ?? job.defaultAccount
            let home = request.defaultHome ?? job.defaultHome
            while !finished {
                if shouldStop() {
                    stopped = true
                    break
                }
                try writer.begin()
                let now = writer.nowMillis()
                var inChunk = 0
                while inChunk < request.chunkSize {
                    guard let record = try reader.next() else {
                        finished = true
                        break
                    }
                    let outcome = try process(
                        record,
                        columns: columns,
                        defaultAccount: account,
                        defaultHome: home,
                        operator: request.operator ?? nil,
                        writer: writer,
                        now: now
                    )
                    report.append(
                        line: record.line,
                        status: outcome.status,
                        code: outcome.error?.code.rawValue ?? "",
                        message: outcome.error?.message ?? "",
                        deviceID: outcome.deviceID ?? "",
                        ref: columns.ref.flatMap { record.fields.indices.contains($0) ? record.fields[$0] : nil } ?? "",
                        note: columns.note.flatMap { record.fields.indices.contains($0) ? record.fields[$0] : nil }
                            ?? ""
                    )
                    switch outcome.status {
                    case "bound": job.bound += 1
                    case "unchanged": job.unchanged += 1
                    default:
                        job.failed += 1
                        job.failuresByCode[outcome.error?.code.rawValue ?? "INTERNAL", default: 0] += 1
                    }
                    job.nextOffset = record.endOffset
                    job.nextLine = record.nextLine
                    inChunk += 1
                }
                job.rowsDone += inChunk
                rowsThisRun += inChunk
                // Report first, then commit: a committed chunk always has its report rows on file.
                job.reportOffset = try report.flush()
                try writer.commitChunk(job, finished: finished)
                progress(
                    BatchProgress(
                        rowsDone: rowsThisRun,
                        bytesDone: reader.offset,
                        bytesTotal: reader.fileSize,
                        seconds: (ContinuousClock.now - started).seconds
                    )
                )
            }
            let seconds = (ContinuousClock.now - started).seconds
            return BatchSummary(
                jobId: request.dryRun ? nil : job.id,
                input: request.inputPath,
                report: job.reportPath,
                dryRun: request.dryRun,
                rows: job.rowsDone,
                bound: job.bound,
                unchanged: job.unchanged,
                failed: job.failed,
                failuresByCode: job.failuresByCode,
                rowsThisRun: rowsThisRun,
                seconds: seconds,
                rowsPerSecond: seconds > 0 ? Double(rowsThisRun) / seconds : 0,
                resumedFromLine: resumedFrom,
                stopped: stopped,
                stoppedAtLine: stopped ? job.nextLine : nil,
                ignoredColumns: columns.ignored
            )
        }
    }

    static func columns(_ header: CSVRecord, path: String) throws(NBGWError) -> Columns {
        if let problem = header.problem {
            throw NBGWError(.invalidRow, "the header line of \(path) is malformed: \(problem)")
        }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let qr = names.firstIndex(of: "qr") else {
            throw NBGWError(
                .missingField,
                "\(path) has no `qr` column (its header names: \(names.map { $0.escapedForDisplay(limit: 24) }.joined(separator: ", "))); "
                    + "the first line must name the columns, e.g. qr,account,home,ref"
            )
        }
        return Columns(
            qr: qr,
            account: names.firstIndex(of: "account"),
            home: names.firstIndex(of: "home"),
            ref: names.firstIndex(of: "ref"),
            note: names.firstIndex(of: "note"),
            ignored: header.fields.enumerated().filter { !knownColumns.contains(names[$0.offset]) }.map(\.element)
        )
    }

    struct RowOutcome {
        var status: String
        var error: NBGWError?
        var deviceID: String?
    }

    /// One row: parse, resolve, check duplicates, evaluate the rules, bind. Every rule failure
    /// becomes the row's report entry; only store failures (disk full, I/O) throw and stop the batch,
    /// with the chunk rolled back.
    func process(
        _ record: CSVRecord,
        columns: Columns,
        defaultAccount: String?,
        defaultHome: String?,
        operator: String?,
        writer: BatchWriter,
        now: Int64
    ) throws -> RowOutcome {
        var deviceID: String?
        do {
            if let problem = record.problem {
                throw NBGWError(
                    .invalidRow,
                    "malformed line: \(problem); inside a quoted field write \"\" for a quote"
                )
            }
            func field(_ index: Int?) -> String? {
                guard let index, index < record.fields.count else { return nil }
                let value = record.fields[index]
                return value.isEmpty ? nil : value
            }
            guard let qr = field(columns.qr) else {
                throw NBGWError(.missingField, "the qr column is empty; paste the scanned label's text")
            }
            guard let accountName = field(columns.account) ?? defaultAccount else {
                throw NBGWError(.missingField, "no account: fill the account column or pass --account")
            }
            guard let homeName = field(columns.home) ?? defaultHome else {
                throw NBGWError(.missingField, "no home: fill the home column or pass --home")
            }
            let lookup: BatchWriter.DeviceLookup?
            switch try QRPayloadParser.parse(qr) {
            case .matter:
                throw NBGWError.matterIsNotNB
            case .nbBind(let nb):
                deviceID = nb.deviceID.rawValue
                lookup = try writer.device(id: nb.deviceID.rawValue)
            case .label(let label):
                guard label.base.lowercased() == labelBase else {
                    throw CloudLabels.foreign(label, base: cloud.labelBase)
                }
                guard let found = try writer.device(labelCode: label.code) else { throw CloudLabels.unknown(label) }
                lookup = found
            }
            if let lookup {
                deviceID = lookup.deviceID
                if let first = writer.firstLine(ofDuplicate: lookup, line: record.line) {
                    throw NBGWError(
                        .duplicateInFile,
                        "device \(lookup.deviceID) was already named on line \(first) of this file; list each device once"
                    )
                }
            }
            let account = try writer.account(accountName)
            let home = try writer.home(homeName)
            let facts = BindFacts(
                deviceID: deviceID ?? "",
                accountName: accountName,
                homeName: homeName,
                account: account,
                home: home,
                device: lookup?.facts,
                existing: lookup?.existing,
                token: .notGiven
            )
            switch try BindingRules.evaluate(facts, nowMillis: now) {
            case .unchanged:
                return RowOutcome(status: "unchanged", deviceID: deviceID)
            case .bind:
                writer.bind(
                    lookup!,
                    account: account!,
                    accountName: accountName,
                    home: home!,
                    homeName: homeName,
                    operator: `operator`,
                    line: record.line,
                    now: now
                )
                return RowOutcome(status: "bound", deviceID: deviceID)
            }
        } catch let error as NBGWError {
            return RowOutcome(status: "failed", error: error, deviceID: deviceID)
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
