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
            an image with several codes lists them all (with --json, one object per code).
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
        try await Output.run(json: store.json) {
            guard let image else {
                try await show(payload!)
                return
            }
            let codes = try QRImages.read(image)
            for (index, code) in codes.enumerated() {
                if !store.json {
                    Output.line("\(index == 0 ? "" : "\n")code \(index + 1) of \(codes.count) in \(image):")
                }
                try await show(code)
            }
        }
    }

    func show(_ payload: String) async throws {
        do {
            var parsed = try QRPayloadParser.parse(payload)
            // Only a label needs the store (and, for a label it never saw, the cloud); everything else
            // parses offline.
            if case .label = parsed {
                let registry = try store.openRegistry()
                parsed = try await cloudOptions.withCloud { cloud in
                    try await BindingService(cloud: cloud, registry: registry).parse(payload)
                }
            }
            switch parsed {
            case .nbBind(let nb):
                if store.json {
                    Output.json(QRParseReport(nb))
                } else {
                    Output.line("kind:        nb-bind")
                    Output.line("actionName:  \(nb.actionName)")
                    Output.line("device id:   \(nb.deviceID)")
                    Output.line("from:        \(nb.origin.rawValue)\(nb.labelURL.map { " \($0)" } ?? "")")
                }
            case .matter(let matter):
                let report = QRParseReport(matter)
                if store.json {
                    Output.json(report)
                } else {
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
                }
            case .label(let label):
                throw NBGWError(.qrProtocolNotRecognized, "label \(label.url.escapedForDisplay()) was not resolved")
            }
        }
    }
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
