import ArgumentParser
import NBGWCore
import Pairing
import Provisioning
import QRImage

struct QR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr",
        abstract: "Inspect scanned QR payloads.",
        subcommands: [QRParse.self]
    )
}

struct QRParse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse a scanned QR payload: NB-IoT bind JSON, action URLs, label URLs, Matter codes.",
        discussion: """
            --image FILE reads the QR codes in a photo or a scan (PNG or JPEG) with zbar and parses each; \
            an image with several codes lists them all, a code that does not parse with its error, and \
            exits with the first failure's status. With --json, one document: \
            {"image": FILE, "codes": [{"index", "payload", "result" | "error"}]}.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var cloudOptions: CloudOptions

    @Argument(help: "The QR payload exactly as scanned.")
    var payload: String?

    @Option(help: "A photo or scan (PNG, JPEG) whose QR codes to read and parse.")
    var image: String?

    func validate() throws {
        guard (payload == nil) != (image == nil) else {
            throw ValidationError("give exactly one of a PAYLOAD or --image FILE")
        }
    }

    func run() async throws {
        var firstFailure: NBGWError?
        try await Output.run(json: store.json) {
            guard let image else {
                let parsed = try await parse(payload!)
                if store.json { Output.json(QRParseReport(parsed)) } else { printText(parsed) }
                return
            }
            let codes = try QRImages.read(image)
            var entries: [QRImageParseReport.Code] = []
            for (index, code) in codes.enumerated() {
                if !store.json {
                    Output.line("\(index == 0 ? "" : "\n")code \(index + 1) of \(codes.count) in \(image):")
                }
                // One code that does not parse is that code's error: the others are still listed.
                do {
                    let parsed = try await parse(code)
                    entries.append(.init(index: index + 1, payload: code, result: QRParseReport(parsed)))
                    if !store.json { printText(parsed) }
                } catch let error as NBGWError {
                    firstFailure = firstFailure ?? error
                    entries.append(
                        .init(
                            index: index + 1,
                            payload: code,
                            error: .init(code: error.code.rawValue, message: error.message)
                        )
                    )
                    if !store.json { Output.line("error: \(error.code.rawValue): \(error.message)") }
                }
            }
            if store.json { Output.json(QRImageParseReport(image: image, codes: entries)) }
        }
        if let firstFailure { throw ExitCode(firstFailure.code.exitCode) }
    }

    /// The payload's meaning; a label resolved from the store, or the cloud for one it never saw.
    func parse(_ payload: String) async throws -> QRPayload {
        let parsed = try QRPayloadParser.parse(payload)
        // Only a label (and, for a label it never saw, the cloud) or an IMEI needs the store;
        // everything else parses offline.
        switch parsed {
        case .label, .imei: break
        case .nbBind, .matter: return parsed
        }
        let registry = try store.openRegistry()
        let resolved = try await cloudOptions.withCloud { cloud in
            try await BindingService(cloud: cloud, registry: registry).parse(payload)
        }
        if case .label(let label) = resolved {
            throw NBGWError(.qrProtocolNotRecognized, "label \(label.url.escapedForDisplay()) was not resolved")
        }
        return resolved
    }

    func printText(_ parsed: QRPayload) {
        switch parsed {
        case .nbBind(let nb):
            Output.line("kind:        nb-bind")
            Output.line("actionName:  \(nb.actionName)")
            Output.line("device id:   \(nb.deviceID)")
            Output.line("from:        \(nb.origin.rawValue)\(nb.labelURL.map { " \($0)" } ?? "")")
            if let imei = nb.imei { Output.line("IMEI:        \(imei)") }
        case .matter(let matter):
            Output.line("kind:                  matter (\(matter.source.rawValue))")
            if let version = matter.version { Output.line("version:               \(version)") }
            if let vendor = matter.vendorID { Output.line("vendorID:              \(vendor)") }
            if let product = matter.productID { Output.line("productID:             \(product)") }
            Output.line("commissioningFlow:     \(matter.commissioningFlow.rawValue)")
            if let rendezvous = matter.rendezvousInformation {
                let methods = matter.rendezvousMethods?.joined(separator: ",") ?? ""
                Output.line("rendezvousInformation: \(rendezvous) (\(methods))")
            }
            Output.line(
                "discriminator:         \(matter.discriminator)\(matter.discriminatorIsShort ? " (short, 4 bits)" : "")"
            )
            Output.line("passcode:              \(matter.passcode)")
            Output.line("note:                  not an NB-IoT device; `nbgw bind` refuses it (NOT_NB_DEVICE)")
        case .label(let label):
            // parse(_:) resolves every label or throws.
            Output.line("label:       \(label.url.escapedForDisplay()) (not resolved)")
        case .imei(let imei):
            Output.line("kind:        imei")
            Output.line("IMEI:        \(imei.digits)")
            Output.line("note:        no module with this IMEI is registered here yet; `nbgw bind` binds it once")
            Output.line("             it is plugged in and ready (`nbgw modems`)")
        }
    }
}

/// `qr parse --image FILE --json`: every code zbar read in the image, in its order, each with its
/// parse result or its error.
struct QRImageParseReport: Encodable {
    struct Code: Encodable {
        var index: Int
        /// The code's text as zbar read it.
        var payload: String
        var result: QRParseReport?
        var error: Output.ErrorBody.Detail?
    }

    var image: String
    var codes: [Code]
}

/// `--image`: the codes zbar reads in a photo, as an ``NBGWError`` when there are none.
enum QRImages {
    static func read(_ path: String) throws(NBGWError) -> [String] {
        do {
            return try QRImageReader.decode(path: path)
        } catch {
            throw NBGWError(error.kind == .noCode ? .invalidQR : .invalidArgument, error.message)
        }
    }
}
