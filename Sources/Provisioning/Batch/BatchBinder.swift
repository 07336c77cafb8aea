import Cloud
import DeviceIdentity
import Foundation
import NBGWCore
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
    ///   - opened: called once the store has opened (or found, to resume) the job, before any row
    ///     is read: a front end learns the job's id there (the console answers the upload with it).
    public func run(
        _ request: BatchRequest,
        progress: (BatchProgress) -> Void = { _ in },
        shouldStop: () -> Bool = { false },
        opened: (BatchJob) -> Void = { _ in }
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
        return try registry.bindings.withBatchSession(dryRun: request.dryRun, queueForCloud: cloud.syncsBindings) {
            session in
            let job = try session.openJob(input, restart: request.restart || request.dryRun)
            opened(job)
            let account = request.defaultAccount ?? job.defaultAccount
            let home = request.defaultHome ?? job.defaultHome
            var run = Run(
                job: job,
                report: try BatchReportWriter(path: job.reportPath, resumeAt: job.resumed ? job.reportOffset : nil),
                columns: columns,
                inputPath: inputPath,
                operator: request.operator ?? nil,
                started: started,
                prepare: { [self] record in
                    prepare(record, columns: columns, defaultAccount: account, defaultHome: home)
                }
            )
            let resumedFrom = job.resumed ? job.nextLine : nil
            while !run.finished && !run.stopped {
                guard request.pipelined && !request.dryRun else {
                    try run.serial(session, request, maxChunks: .max, progress: progress, shouldStop: shouldStop)
                    continue
                }
                do {
                    try run.pipelined(session, request, progress: progress, shouldStop: shouldStop)
                } catch is BatchWriteConflict {
                    run.chunksRedecided += 1
                    // Another writer changed what the chunk's snapshot showed: that chunk is
                    // decided again under the write lock, then the pipeline starts again after it.
                    try run.serial(session, request, maxChunks: 1, progress: progress, shouldStop: shouldStop)
                }
            }
            let seconds = (ContinuousClock.now - started).seconds
            var summary = BatchSummary(input: request.inputPath, report: run.job.reportPath)
            summary.jobId = request.dryRun ? nil : run.job.id
            summary.dryRun = request.dryRun
            summary.rows = run.job.rowsDone
            summary.bound = run.job.bound
            summary.unchanged = run.job.unchanged
            summary.failed = run.job.failed
            summary.failuresByCode = run.job.failuresByCode
            summary.rowsThisRun = run.rowsThisRun
            summary.seconds = seconds
            summary.rowsPerSecond = seconds > 0 ? Double(run.rowsThisRun) / seconds : 0
            summary.resumedFromLine = resumedFrom
            summary.stopped = run.stopped
            summary.stoppedAtLine = run.stopped ? run.job.nextLine : nil
            summary.ignoredColumns = columns.ignored
            summary.chunksRedecided = run.chunksRedecided
            return summary
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

        init(status: String, error: NBGWError? = nil, deviceID: String? = nil) {
            self.status = status
            self.error = error
            self.deviceID = deviceID
        }
    }

    /// A record made ready for the store, or refused before it (a malformed line, an empty field,
    /// a payload that is not an NB bind, a label of another issuer).
    enum Prepared {
        case row(BatchRow)
        case failed(RowOutcome)
    }

    /// One record: the line's shape, its fields, the QR payload parsed and labels checked against
    /// the configured cloud's prefix. The rules are the store's (``Registry/BatchSession``).
    func prepare(
        _ record: CSVRecord,
        columns: Columns,
        defaultAccount: String?,
        defaultHome: String?
    ) -> Prepared {
        var deviceID: String?
        do throws(NBGWError) {
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
            let device: BatchRow.Device
            switch try QRPayloadParser.parse(qr) {
            case .matter:
                throw NBGWError.matterIsNotNB
            case .nbBind(let nb):
                deviceID = nb.deviceID.rawValue
                device = .id(nb.deviceID.rawValue)
            case .label(let label):
                // `labelBase` is lower case: a base equal to it needs no lower-casing (a string
                // allocated per row otherwise).
                guard label.base == labelBase || label.base.lowercased() == labelBase else {
                    throw CloudLabels.foreign(label, base: cloud.labelBase)
                }
                device = .labelCode(label.code)
            case .imei(let imei):
                device = .imei(imei.digits)
            }
            return .row(BatchRow(line: record.line, device: device, accountName: accountName, homeName: homeName))
        } catch {
            return .failed(RowOutcome(status: "failed", error: error, deviceID: deviceID))
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
