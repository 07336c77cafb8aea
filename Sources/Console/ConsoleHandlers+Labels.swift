import Foundation
import Hummingbird
import Ingest
import Labels
import NBGWCore
import PosixSupport
import Provisioning
import Registry

extension ConsoleHandlers {
    /// `GET /labels/{file}`: a registered module's pairing label as `nbgw labels` makes it,
    /// `DEVICE.png` (shown on the module page) or `DEVICE.pdf` (one label on a page of the label's
    /// size, for a label printer). Operators. Looking is not printing: nothing is recorded.
    func label(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        _ = try session(request, context, role: .operator)
        let file = context.parameters.get("file") ?? ""
        let format: LabelFormat
        if file.hasSuffix(".png") {
            format = .png
        } else if file.hasSuffix(".pdf") {
            format = .pdf
        } else {
            throw ConsoleFailure.notFound("no label file \(file.escapedForDisplay()): ask for DEVICE.png or DEVICE.pdf")
        }
        let deviceID = String(file.dropLast(4))
        guard let device = try registry.directory.device(id: deviceID) else {
            throw ConsoleFailure.notFound("no registered module \(deviceID.escapedForDisplay())")
        }
        let document = try await render([device], format: format, paper: .roll)
        return Response(
            status: .ok,
            headers: [
                .contentType: format == .png ? "image/png" : "application/pdf",
                .contentDisposition: "inline; filename=\"\(LabelPrinter.fileName(for: device, format: format))\"",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: document.bytes))
        )
    }

    /// `POST /labels/print`: one PDF sheet (on ``ConsoleConfiguration/labelPaper``) of the labels
    /// of every registered module that has none yet, recorded as printed (`label_print`: source
    /// `daemon`, destination `console`, this operator; as `nbgw labels --unprinted` records its
    /// own), so the next sheet holds only modules registered since. Nothing to print: back to the modems page, which says so.
    func printUnprintedLabels(_ request: Request, _ context: IngestRequestContext) async throws -> Response {
        let session = try session(request, context, role: .operator)
        try checkCSRF(request, session, form: try await form(request))
        let devices = try registry.labels.devices(.unprinted)
        guard !devices.isEmpty else { return ConsoleResponses.redirect(to: "/modems") }
        let document = try await render(devices, format: .pdf, paper: configuration.labelPaper)
        do {
            try LabelPrinter(cloud: cloud, registry: registry).recordPrinted(
                document,
                format: .pdf,
                destination: "console",
                // The daemon made them (the store's sources are `cli` and `daemon`), for this operator.
                source: "daemon",
                operator: session.operatorName
            )
        } catch {
            throw ConsoleFailure.bad(error)
        }
        logger.info(
            "console printed labels",
            metadata: ["labels": "\(devices.count)", "operator": "\(session.operatorName)"]
        )
        let stamp = Int(Date().timeIntervalSince1970)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/pdf",
                .contentDisposition: "attachment; filename=\"labels-\(stamp).pdf\"",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: document.bytes))
        )
    }

    /// The labels of `devices` in one document, drawn on the labels' own thread: cairo and
    /// libqrencode work for each label, and a sheet grows with its modules, work that must not
    /// hold a thread of the pool the supervisors and the watchdog run on. Busy (a sheet
    /// already being drawn and others waiting): 429, try again.
    private func render(
        _ devices: [DeviceRecord],
        format: LabelFormat,
        paper: LabelPaper
    ) async throws
        -> LabelDocument
    {
        let printer = LabelPrinter(cloud: cloud, registry: registry)
        let style = configuration.labelStyle
        let rendered: Result<[LabelDocument], NBGWError>
        do {
            rendered = try await labelWork.run {
                Result { () throws(NBGWError) in
                    try printer.documents(for: devices, format: format, style: style, paper: paper)
                }
            }
        } catch {
            throw ConsoleFailure.bad(
                NBGWError(.rateLimited, "the gateway is drawing other labels; try again in a few seconds")
            )
        }
        guard let document = try rendered.get().first else {
            throw ConsoleFailure.notFound("no label to draw")
        }
        return document
    }
}
