import ArgumentParser
import Foundation
import NBGWCore
import Provisioning
import Registry

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Registered modules (device ids and pairing labels).",
        subcommands: [DevicesRegister.self, DevicesList.self, DevicesShow.self]
    )
}

struct DevicesRegister: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a module with the cloud (embedded local); repeat-safe by IMEI.",
        discussion: "Prints the device id and the QR payload for the module's pairing label."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var cloudOptions: CloudOptions

    @Option(help: "15-digit IMEI with a valid Luhn check digit (AT+CGSN).")
    var imei: String
    @Option(help: "IMSI (AT+CIMI).") var imsi: String?
    @Option(help: "SIM ICCID.") var iccid: String?
    @Option(help: "Manufacturer (AT+CGMI).") var manufacturer: String?
    @Option(help: "Model (AT+CGMM).") var model: String?
    @Option(help: "Firmware revision (AT+CGMR).") var firmware: String?
    @Option(help: "Cloud product id.") var product: String?

    struct Report: Encodable {
        var status: String
        var deviceId: String
        var imei: String
        var qr: String
        var changed: [String]
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openRegistry()
            let registration = try await cloudOptions.withCloud { cloud in
                try await DeviceRegistrar(cloud: cloud, registry: registry).register(
                    imei: imei,
                    imsi: imsi,
                    iccid: iccid,
                    manufacturer: manufacturer,
                    model: model,
                    firmware: firmware,
                    productID: product
                )
            }
            let status =
                registration.created ? "registered" : (registration.changedFields.isEmpty ? "unchanged" : "updated")
            if store.json {
                Output.json(
                    Report(
                        status: status,
                        deviceId: registration.device.deviceID,
                        imei: registration.device.imei,
                        qr: registration.labelPayload,
                        changed: registration.changedFields
                    )
                )
            } else {
                Output.line("\(status): IMEI \(registration.device.imei)")
                Output.line("device id: \(registration.device.deviceID)")
                Output.line("label QR:  \(registration.labelPayload)")
            }
        }
    }
}

struct DevicesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List registered devices.")

    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openExistingRegistry()
            var all: [DeviceRecord] = []
            var cursor = ""
            while true {
                let page = try registry.directory.devices(limit: 1000, after: cursor)
                all.append(contentsOf: page)
                guard let last = page.last, page.count == 1000 else { break }
                cursor = last.deviceID
            }
            if store.json {
                Output.json(["devices": all])
            } else {
                Output.table(
                    ["DEVICE", "IMEI", "MODEL", "PRODUCT", "REGISTERED"],
                    all.map {
                        [$0.deviceID, $0.imei, $0.model ?? "-", $0.productID ?? "-", Output.timestamp($0.registeredAt)]
                    }
                )
            }
        }
    }
}

struct DevicesShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one device (by device id or IMEI): identity, label QR, binding, audit trail."
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var cloudOptions: CloudOptions

    @Argument(help: "Device id or IMEI.")
    var device: String

    struct Report: Encodable {
        var device: DeviceRecord
        var qr: String
        var binding: BindingRecord?
        var audit: [AuditEntry]
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openExistingRegistry()
            guard let record = try registry.directory.device(id: device) ?? registry.directory.device(imei: device)
            else {
                throw NBGWError(
                    .unknownDevice,
                    "no device with id or IMEI \(device.escapedForDisplay()); list them with `nbgw devices list`"
                )
            }
            let label = try await cloudOptions.withCloud { cloud in cloud.labelBase + record.labelCode }
            let report = Report(
                device: record,
                qr: label,
                binding: try registry.bindings.find(deviceID: record.deviceID),
                audit: try registry.audit.entries(deviceID: record.deviceID)
            )
            if store.json {
                Output.json(report)
            } else {
                Output.line("device id:    \(record.deviceID)")
                Output.line("IMEI:         \(record.imei)")
                Output.line("IMSI:         \(record.imsi ?? "-")")
                Output.line("ICCID:        \(record.iccid ?? "-")")
                Output.line("manufacturer: \(record.manufacturer ?? "-")")
                Output.line("model:        \(record.model ?? "-")")
                Output.line("firmware:     \(record.firmware ?? "-")")
                Output.line("product:      \(record.productID ?? "-")")
                Output.line("registered:   \(Output.timestamp(record.registeredAt))")
                Output.line("label QR:     \(report.qr)")
                if let binding = report.binding {
                    Output.line(
                        "bound:        account \(binding.account), home \(binding.home) since "
                            + "\(Output.timestamp(binding.boundAt)) (\(binding.source.rawValue))"
                    )
                } else {
                    Output.line("bound:        no")
                }
                for entry in report.audit {
                    Output.line(
                        "  \(Output.timestamp(entry.at))  \(entry.event)"
                            + [entry.account, entry.home, entry.code, entry.detail].compactMap { $0 }.map { " \($0)" }
                            .joined()
                            // An ingest API bind: which key, from which client (migration v6).
                            + (entry.apiKey.map { " (key \($0) from \(entry.clientAddress ?? "-"))" } ?? "")
                    )
                }
            }
        }
    }
}
