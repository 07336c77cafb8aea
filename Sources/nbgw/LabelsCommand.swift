import ArgumentParser
import Foundation
import Labels
import NBGWCore
import Provisioning
import Registry

struct LabelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "labels",
        abstract: "Make pairing labels (QR + IMEI, model, device id, code) as PNG, SVG, a PDF sheet or ZPL.",
        discussion: """
            Each label's QR is exactly the payload `nbgw qr parse` resolves back to its module. png and svg \
            write one file per module (DEVICE.png) into --out DIR; pdf writes one sheet (A4 or Letter grid, \
            or one label per page with --paper roll) and zpl one stream for a Zebra printer, to --out FILE, \
            DIR (DIR/labels.pdf) or - (standard output). Every label made is recorded in the store, so \
            --unprinted selects the modules that have none yet (docs/labels-and-scanning.md).
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var cloudOptions: CloudOptions
    @OptionGroup var who: OperatorOption

    @Argument(help: "Device ids or IMEIs (or use --all, --unprinted, --since).")
    var devices: [String] = []

    @Flag(help: "Every registered module.") var all = false
    @Flag(help: "Modules no label was made for yet.") var unprinted = false
    @Option(help: "Modules registered at or after TIME (ISO 8601, e.g. 2026-11-26 or 2026-11-26T08:00:00Z).")
    var since: String?

    @Option(help: "png, svg, pdf or zpl.") var format: String = "png"
    @Option(help: "A directory, a file, or - for standard output (default: the current directory).")
    var out: String = "."
    @Option(help: "Label size WxH in mm (or in with `in`), e.g. 25x25mm, 50x25mm, 2x1in.") var size: String = "50x25mm"
    @Option(help: "Dots per inch for png and zpl (203, 300, 600).") var dpi: Int = 300
    @Option(help: "pdf: a4, letter, or roll (one label per page of the label's size).") var paper: String = "a4"
    @Option(help: "QR error correction: L, M, Q or H.") var correction: String = "M"

    struct Report: Encodable {
        struct File: Encodable {
            var path: String
            var devices: [String]
        }
        var format: String
        var labels: Int
        var files: [File]
    }

    func validate() throws {
        let selections = [!devices.isEmpty, all, unprinted, since != nil].filter { $0 }.count
        guard selections == 1 else {
            throw ValidationError("give device ids or IMEIs, or exactly one of --all, --unprinted, --since TIME")
        }
        guard LabelFormat(rawValue: format) != nil else {
            throw ValidationError("--format must be png, svg, pdf or zpl")
        }
        guard LabelPaper(rawValue: paper.lowercased()) != nil else {
            throw ValidationError("--paper must be a4, letter or roll")
        }
        guard QRErrorCorrection(rawValue: correction.uppercased()) != nil else {
            throw ValidationError("--correction must be L, M, Q or H")
        }
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let format = LabelFormat(rawValue: format)!
            let style = try makeStyle()
            let selection = try makeSelection()
            let registry = try store.openExistingRegistry()
            let chosen = try registry.labels.devices(selection)
            guard !chosen.isEmpty else {
                if store.json {
                    Output.json(Report(format: format.rawValue, labels: 0, files: []))
                } else {
                    FileHandle.standardError.write(Data("no modules match: no labels made\n".utf8))
                }
                return
            }
            let written = try await cloudOptions.withCloud { cloud in
                let printer = LabelPrinter(cloud: cloud, registry: registry)
                let documents = try printer.documents(
                    for: chosen,
                    format: format,
                    style: style,
                    paper: LabelPaper(rawValue: paper.lowercased())!
                )
                return try write(documents, format: format, printer: printer)
            }
            if store.json {
                Output.json(
                    Report(
                        format: format.rawValue,
                        labels: chosen.count,
                        files: written.map { Report.File(path: $0.path ?? "-", devices: $0.devices) }
                    )
                )
            } else if out != "-" {
                for file in written {
                    Output.line(
                        "\(file.path ?? "-")  (\(file.devices.count) label\(file.devices.count == 1 ? "" : "s"))"
                    )
                }
            }
        }
    }

    func makeStyle() throws(NBGWError) -> LabelStyle {
        do {
            let dimensions = try LabelStyle.parseSize(size)
            let style = LabelStyle(
                widthMM: dimensions.width,
                heightMM: dimensions.height,
                dpi: dpi,
                correction: QRErrorCorrection(rawValue: correction.uppercased())!
            )
            try style.validate()
            return style
        } catch {
            throw NBGWError(.invalidArgument, error.message)
        }
    }

    func makeSelection() throws(NBGWError) -> Registry.LabelSelection {
        if all { return .all }
        if unprinted { return .unprinted }
        if let since {
            let full = try? Date(since, strategy: Date.ISO8601FormatStyle())
            let day = try? Date(since, strategy: Date.ISO8601FormatStyle().year().month().day())
            guard let date = full ?? day else {
                throw NBGWError(
                    .invalidArgument,
                    "--since \(since.escapedForDisplay()) is not a date: write 2026-11-26 or 2026-11-26T08:00:00Z"
                )
            }
            return .registeredSince(date)
        }
        return .devices(devices)
    }

    /// Writes the documents where --out says and records each; returns (path, devices) per file.
    func write(
        _ documents: [LabelDocument],
        format: LabelFormat,
        printer: LabelPrinter
    ) throws -> [(path: String?, devices: [String])] {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory)
        var written: [(path: String?, devices: [String])] = []
        if out == "-" {
            guard documents.count == 1 else {
                throw NBGWError(
                    .invalidArgument,
                    "\(documents.count) \(format.rawValue) files cannot all go to standard output: give --out DIR, "
                        + "or one device"
                )
            }
            FileHandle.standardOutput.write(Data(documents[0].bytes))
            try printer.recordPrinted(
                documents[0],
                format: format,
                destination: nil,
                source: "cli",
                operator: who.resolved
            )
            return [(nil, documents[0].deviceIDs)]
        }
        let intoDirectory = exists ? isDirectory.boolValue : (documents.count > 1 || out.hasSuffix("/"))
        if intoDirectory, !exists {
            throw NBGWError(.invalidArgument, "--out \(out.escapedForDisplay()): no such directory; create it first")
        }
        for document in documents {
            let path = intoDirectory ? (out as NSString).appendingPathComponent(document.fileName) : out
            try LabelFileWriter.write(document.bytes, to: path)
            try printer.recordPrinted(
                document,
                format: format,
                destination: path,
                source: "cli",
                operator: who.resolved
            )
            written.append((path, document.deviceIDs))
        }
        return written
    }
}
