import Foundation
import HTTPTypes
import Hummingbird
import Ingest
import NBGWCore
import Registry

extension ConsoleHandlers {
    /// `GET /batch`: the upload form, the running batch and the newest jobs (from the store, so the
    /// list survives a restart), with a resume for an interrupted one.
    func batchPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        let jobs = try await batches.jobs()
        let running = jobs.first { $0.status == .running }
        var values: [String: Any] = [
            "accounts": try registry.directory.accounts().filter { $0.role == .owner }.map { ["name": $0.name] },
            "homes": try registry.directory.homes().map { ["name": $0.name] },
            "jobs": jobs.map(jobRow),
            "status": running.map {
                "Batch \($0.id) (\($0.name)), started by \($0.record.operator ?? "?"), is running."
            } ?? "No batch running.",
            "limits": "At most \(ConsoleBatchQuota.mebibytes(Int64(configuration.maxCSVBytes))) per file, "
                + "\(configuration.maxRunningBatches == 1 ? "one batch" : "\(configuration.maxRunningBatches) batches") at a time; "
                + "reports are kept \(Self.days(configuration.batchRetention)).",
        ]
        if let running { values["running"] = running.id }
        return page("batch", title: "Batch", nav: "batch", session: session, values)
    }

    func jobRow(_ job: ConsoleBatchJob) -> [String: Any] {
        var row: [String: Any] = [
            "id": job.id, "name": job.name, "operator": job.record.operator ?? "",
            "started": Self.date(job.record.startedAt), "state": Self.stateLabel(job), "rows": job.record.rowsDone,
            "bound": job.record.bound, "unchanged": job.record.unchanged, "failed": job.record.failed,
        ]
        if job.hasReport && job.status != .running { row["report"] = "/batch/\(job.id)/report.csv" }
        if job.status == .interrupted { row["resume"] = "/batch/\(job.id)/resume" }
        return row
    }

    static func stateLabel(_ job: ConsoleBatchJob) -> String {
        switch job.status {
        case .running: return "running"
        case .finished: return job.hasReport ? "done" : "done (report expired)"
        case .interrupted:
            return job.error.map { "failed: \($0.code.rawValue)" } ?? "interrupted at line \(job.record.nextLine)"
        case .abandoned: return "given up"
        }
    }

    /// `POST /batch?name=F&account=A&home=H` with the CSV file as the body, streamed to disk.
    func batchUpload(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        try checkCSRF(request, session, form: [:])
        let fields = query(request)
        let name = fields["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "upload.csv"
        let id: Int64
        do {
            id = try await batches.upload(
                request.body,
                declaredLength: request.headers[.contentLength].flatMap { Int64($0) },
                name: name,
                account: fields["account"].flatMap { $0.isEmpty ? nil : $0 },
                home: fields["home"].flatMap { $0.isEmpty ? nil : $0 },
                operator: session.operatorName,
                ended: batchAuditor(context)
            )
        } catch let refusal as ConsoleBatchRefusal {
            return refused(refusal, request)
        } catch let error as NBGWError {
            throw ConsoleFailure.bad(error)
        }
        return ConsoleResponses.json(["id": id, "name": ConsoleBatches.fileName(name)], status: .accepted)
    }

    /// `POST /batch/{id}/resume`: an interrupted batch goes on from its last committed chunk.
    func batchResume(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        try checkCSRF(request, session, form: try await form(request))
        guard let id = context.parameters.get("job").flatMap({ Int64($0) }) else {
            throw ConsoleFailure.notFound("no batch \((context.parameters.get("job") ?? "").escapedForDisplay())")
        }
        do {
            _ = try await batches.resume(id, operator: session.operatorName, ended: batchAuditor(context))
        } catch let refusal as ConsoleBatchRefusal {
            return refused(refusal, request)
        } catch let error as NBGWError {
            throw ConsoleFailure.bad(error)
        }
        if wantsJSON(request) { return ConsoleResponses.json(["id": id], status: .accepted) }
        return ConsoleResponses.redirect(to: "/batch")
    }

    /// The console's trail for a run's end: one `batch` row with its counts, or its failure.
    func batchAuditor(_ context: IngestRequestContext) -> @Sendable (ConsoleBatches.End) -> Void {
        let registry = registry
        let address = context.clientAddress
        let logger = logger
        return { end in
            let code: String
            var detail: String
            if let summary = end.summary, summary.stopped {
                code = "STOPPED"
                detail =
                    "\(end.name): stopped at line \(summary.stoppedAtLine ?? 0) by the gateway's stop after "
                    + "\(summary.rows) rows (job \(end.jobID)); resumable"
            } else if let summary = end.summary {
                code = "OK"
                detail =
                    "\(end.name): \(summary.rows) rows, \(summary.bound) bound, \(summary.unchanged) unchanged, "
                    + "\(summary.failed) failed (job \(end.jobID))"
            } else {
                code = end.error?.code.rawValue ?? "INTERNAL"
                detail = "\(end.name): \(end.error?.message ?? "failed") (job \(end.jobID))"
            }
            if end.resumed { detail = "resumed " + detail }
            do {
                try registry.console.recordAction(
                    "batch",
                    operator: end.operatorName,
                    clientAddress: address,
                    code: code,
                    detail: detail
                )
            } catch {
                logger.error("console batch not audited", metadata: ["error": "\(error)"])
            }
        }
    }

    /// A refused upload or resume, in the shape of every console refusal, with `Retry-After` when
    /// trying again later will work.
    func refused(_ refusal: ConsoleBatchRefusal, _ request: Request) -> Response {
        let status = HTTPResponse.Status(code: refusal.error.code.httpStatus)
        var response: Response
        if wantsJSON(request) {
            response = ConsoleResponses.json(
                [
                    "status": "failed", "headline": "Refused", "code": refusal.error.code.rawValue,
                    "message": refusal.error.message,
                ],
                status: status
            )
        } else {
            response = ConsoleResponses.html(
                templates.render(
                    "message",
                    [
                        "title": "Refused", "page": "message", "kind": "failed", "headline": status.reasonPhrase,
                        "code": refusal.error.code.rawValue, "message": refusal.error.message, "back": "/batch",
                        "version": NBGWVersion.current,
                    ]
                ),
                status: status
            )
        }
        if let seconds = refusal.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    /// `GET /batch/{id}.json`: status, progress, then the summary.
    func batchProgress(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        _ = try session(request, context, role: .operator)
        let raw = context.parameters.get("job") ?? ""
        guard raw.hasSuffix(".json"), let id = Int64(raw.dropLast(5)) else {
            throw ConsoleFailure.notFound("no batch \(raw.escapedForDisplay())")
        }
        // Looked up apart from the guard and the page built by a synchronous function: the release
        // build's optimiser (Swift 6.3.1) crashed splitting this coroutine when the lookup sat in
        // the guard and the page was built after it.
        let found = try await batches.job(id)
        guard let job = found else { throw ConsoleFailure.notFound("no batch \(raw.escapedForDisplay())") }
        return ConsoleResponses.json(Self.progress(of: job))
    }

    /// What the batch page polls: counts, the state in words, and the report's or the resume's link.
    static func progress(of job: ConsoleBatchJob) -> [String: Any] {
        let record = job.record
        var value: [String: Any] = [
            "id": job.id, "name": job.name, "status": job.status.rawValue, "done": job.done,
            "bytesDone": job.status == .finished ? record.inputSize : record.nextOffset,
            "bytesTotal": record.inputSize, "rows": record.rowsDone, "bound": record.bound,
            "unchanged": record.unchanged, "failed": record.failed,
        ]
        if job.hasReport && job.done { value["report"] = "/batch/\(job.id)/report.csv" }
        switch job.status {
        case .running:
            value["summary"] = "Binding… \(record.rowsDone) rows so far."
        case .finished:
            let codes = record.failuresByCode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            value["summary"] =
                "Done: \(record.rowsDone) rows, \(record.bound) bound, \(record.unchanged) unchanged, "
                + "\(record.failed) failed" + (codes.isEmpty ? "." : " (\(codes.joined(separator: ", "))).")
        case .interrupted:
            value["resume"] = "/batch/\(job.id)/resume"
            if let error = job.error {
                value["code"] = error.code.rawValue
                value["summary"] =
                    "Failed: \(error.code.rawValue) \(error.message). \(record.rowsDone) rows are committed; "
                    + "resume it from the list below once the cause is fixed."
            } else {
                value["summary"] =
                    "Interrupted at line \(record.nextLine) after \(record.rowsDone) rows (the gateway stopped); "
                    + "resume it from the list below."
            }
        case .abandoned:
            value["summary"] =
                "Given up after \(record.rowsDone) rows: its upload was deleted. Upload the file again; rows "
                + "already bound come back unchanged."
        }
        return value
    }

    /// `GET /batch/{id}/report.csv`: the per-row report `nbgw bind --csv` writes, streamed from the file.
    func batchReport(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        _ = try session(request, context, role: .operator)
        let raw = context.parameters.get("job") ?? ""
        let missing = ConsoleFailure.notFound(
            "no report for batch \(raw.escapedForDisplay()): it is running, or its report expired "
                + "([console] batch_retention)"
        )
        guard let id = Int64(raw) else { throw missing }
        // Apart from the guard, as in ``batchProgress(_:_:)``: the optimiser's coroutine split.
        let found = try await batches.report(id)
        guard let report = found else { throw missing }
        let base = (report.name as NSString).deletingPathExtension.filter {
            $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_"
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"\(base.isEmpty ? "batch" : base).report.csv\"",
            ],
            body: report.body
        )
    }

    /// "7 days", "36 hours".
    static func days(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        if seconds % 86_400 == 0 { return seconds == 86_400 ? "1 day" : "\(seconds / 86_400) days" }
        return "\(max(1, seconds / 3600)) hours"
    }
}
