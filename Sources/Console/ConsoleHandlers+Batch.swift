import Foundation
import Hummingbird
import Ingest
import NBGWCore
import Registry

extension ConsoleHandlers {
    /// `GET /batch`.
    func batchPage(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        let jobs = batches.all().map(jobRow)
        let values: [String: Any] = [
            "accounts": try registry.directory.accounts().filter { $0.role == .owner }.map { ["name": $0.name] },
            "homes": try registry.directory.homes().map { ["name": $0.name] },
            "jobs": jobs,
            "status": "No batch running.",
        ]
        return page("batch", title: "Batch", nav: "batch", session: session, values)
    }

    func jobRow(_ job: ConsoleBatches.Job) -> [String: Any] {
        var row: [String: Any] = [
            "id": job.id, "name": job.name, "rows": job.summary?.rows ?? job.rowsDone,
            "bound": job.summary?.bound ?? 0, "unchanged": job.summary?.unchanged ?? 0,
            "failed": job.summary?.failed ?? 0,
        ]
        if job.summary != nil { row["report"] = "/batch/\(job.id)/report.csv" }
        return row
    }

    /// `POST /batch?name=F&account=A&home=H` with the CSV file as the body.
    func batchUpload(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        try checkCSRF(request, session, form: [:])
        let fields = query(request)
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: configuration.maxCSVBytes)
        } catch {
            throw ConsoleFailure.bad(
                NBGWError(
                    .payloadTooLarge,
                    "a CSV upload is at most \(configuration.maxCSVBytes / 1_048_576) MiB; split the file"
                )
            )
        }
        let bytes = buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
        let name = fields["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "upload.csv"
        let account = fields["account"].flatMap { $0.isEmpty ? nil : $0 }
        let home = fields["home"].flatMap { $0.isEmpty ? nil : $0 }
        let registry = registry
        let address = context.clientAddress
        let logger = logger
        let job = try batches.start(
            name: name,
            bytes: bytes,
            account: account,
            home: home,
            operator: session.operatorName
        ) { job in
            let detail: String
            let code: String
            if let summary = job.summary {
                code = "OK"
                detail =
                    "\(job.name): \(summary.rows) rows, \(summary.bound) bound, \(summary.unchanged) unchanged, "
                    + "\(summary.failed) failed (job \(summary.jobId.map(String.init) ?? "-"))"
            } else {
                code = job.error?.code.rawValue ?? "INTERNAL"
                detail = "\(job.name): \(job.error?.message ?? "failed")"
            }
            do {
                try registry.console.recordAction(
                    "batch",
                    operator: job.operatorName,
                    clientAddress: address,
                    code: code,
                    detail: detail
                )
            } catch {
                logger.error("console batch not audited", metadata: ["error": "\(error)"])
            }
        }
        return ConsoleResponses.json(["id": job.id, "name": job.name], status: .accepted)
    }

    /// `GET /batch/{id}.json`: progress, then the summary.
    func batchProgress(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        _ = try session(request, context, role: .operator)
        let raw = context.parameters.get("job") ?? ""
        guard raw.hasSuffix(".json"), let id = Int(raw.dropLast(5)), let job = batches.job(id) else {
            throw ConsoleFailure.notFound("no batch \(raw.escapedForDisplay())")
        }
        var value: [String: Any] = [
            "id": job.id, "done": job.done, "bytesDone": job.bytesDone, "bytesTotal": job.bytesTotal,
            "rows": job.rowsDone,
        ]
        if let summary = job.summary {
            value["bound"] = summary.bound
            value["unchanged"] = summary.unchanged
            value["failed"] = summary.failed
            value["report"] = "/batch/\(job.id)/report.csv"
            let codes = summary.failuresByCode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            value["summary"] =
                "Done: \(summary.rows) rows, \(summary.bound) bound, \(summary.unchanged) unchanged, \(summary.failed) failed"
                + (codes.isEmpty ? "." : " (\(codes.joined(separator: ", "))).")
        } else if let error = job.error {
            value["code"] = error.code.rawValue
            value["summary"] = "Failed: \(error.code.rawValue) \(error.message)"
        } else {
            value["summary"] = "Binding… \(job.rowsDone) rows so far."
        }
        return ConsoleResponses.json(value)
    }

    /// `GET /batch/{id}/report.csv`: the per-row report `nbgw bind --csv` writes.
    func batchReport(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        _ = try session(request, context, role: .operator)
        guard let id = context.parameters.get("job").flatMap(Int.init), let job = batches.job(id), job.summary != nil,
            let data = FileManager.default.contents(atPath: job.reportPath)
        else {
            throw ConsoleFailure.notFound("no finished batch \(context.parameters.get("job") ?? "")")
        }
        let base = (job.name as NSString).deletingPathExtension.filter {
            $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_"
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"\(base.isEmpty ? "batch" : base).report.csv\"",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
