import Cloud
import Foundation
import Labels
import NBGWCore
import Registry

/// Makes the pairing labels of registered modules (`nbgw labels`, the daemon's `[labels]
/// directory`) and records each in the store's printing audit (`label_print`), so
/// `nbgw labels --unprinted` knows which modules still need one.
///
/// A label's QR is exactly ``BindingService/labelPayload(for:)``: the payload `nbgw qr parse` and
/// `nbgw bind` resolve back to the module. Its text is the IMEI, the model, the device id and the
/// label code, for a person who cannot scan it.
public struct LabelPrinter: Sendable {
    public let binding: BindingService

    public init(cloud: any CloudService, registry: Registry) {
        binding = BindingService(cloud: cloud, registry: registry)
    }

    /// The label of one module.
    public func label(for device: DeviceRecord) -> Label {
        var model = [device.manufacturer, device.model].compactMap { $0 }.joined(separator: " ")
        if model.isEmpty { model = "model unknown" }
        return Label(
            payload: binding.labelPayload(for: device),
            lines: [
                "IMEI \(device.imei)",
                String(model.prefix(32)),
                "ID \(device.deviceID)",
                "code \(device.labelCode)",
            ]
        )
    }

    /// The files for `devices` in `format`: one per module for png and svg, one for all for pdf
    /// (a sheet on `paper`) and zpl.
    public func documents(
        for devices: [DeviceRecord],
        format: LabelFormat,
        style: LabelStyle = LabelStyle(),
        paper: LabelPaper = .a4
    ) throws(NBGWError) -> [LabelDocument] {
        guard !devices.isEmpty else { return [] }
        do {
            switch format {
            case .png, .svg:
                return try devices.map { device throws(LabelError) in
                    let label = label(for: device)
                    let bytes =
                        format == .png
                        ? try LabelRenderer.png(label, style: style) : try LabelRenderer.svg(label, style: style)
                    return LabelDocument(
                        deviceIDs: [device.deviceID],
                        fileName: LabelPrinter.fileName(for: device, format: format),
                        bytes: bytes
                    )
                }
            case .pdf:
                let bytes = try LabelRenderer.pdf(devices.map(label(for:)), style: style, paper: paper)
                return [LabelDocument(deviceIDs: devices.map(\.deviceID), fileName: "labels.pdf", bytes: bytes)]
            case .zpl:
                let text = try LabelRenderer.zpl(devices.map(label(for:)), style: style)
                return [
                    LabelDocument(deviceIDs: devices.map(\.deviceID), fileName: "labels.zpl", bytes: Array(text.utf8))
                ]
            }
        } catch {
            throw NBGWError(.invalidArgument, "cannot make the labels: \(error.message)")
        }
    }

    /// `<device id>.<format>`: device ids are the store's (letters, digits, `-`, `_`), never a path.
    public static func fileName(for device: DeviceRecord, format: LabelFormat) -> String {
        let safe = device.deviceID.map { character -> Character in
            character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
                ? character : "_"
        }
        return String(safe) + "." + format.fileExtension
    }

    /// Records that `document` went to `destination` (nil: standard output).
    public func recordPrinted(
        _ document: LabelDocument,
        format: LabelFormat,
        destination: String?,
        source: String,
        operator: String? = nil
    ) throws(NBGWError) {
        try binding.registry.labels.recordPrints(
            document.deviceIDs.map { (deviceID: $0, destination: destination) },
            format: format.rawValue,
            source: source,
            operator: `operator`
        )
    }
}
