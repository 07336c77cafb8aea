import Cloud
import Foundation
import Gateway
import Labels
import Logging
import Provisioning
import Registry
import ServiceLifecycle

/// Writes a label file for every module the gateway registers (`[labels] directory`): when a
/// module reaches `ready` with its device id, `<directory>/<device id>.<format>` is made unless it
/// exists, written whole (``Provisioning/LabelFileWriter``) and recorded in the printing audit
/// (source `daemon`). A technician plugging in a tray of modules finds a file per module.
///
/// A failure (a full disk, a directory removed) is logged with the module and the path and never
/// touches the module's supervision; the next time the module becomes ready it is tried again.
final class LabelWriterService: Service, CustomStringConvertible {
    let settings: DaemonConfiguration.LabelFiles
    let changes: AsyncStream<ModemStateChange>
    let printer: LabelPrinter
    let registry: Registry
    let logger: Logger

    var description: String { "labels" }

    init(
        settings: DaemonConfiguration.LabelFiles,
        changes: AsyncStream<ModemStateChange>,
        registry: Registry,
        cloud: any CloudService,
        logger: Logger
    ) {
        self.settings = settings
        self.changes = changes
        self.registry = registry
        self.printer = LabelPrinter(cloud: cloud, registry: registry)
        self.logger = logger
    }

    func run() async throws {
        guard let directory = settings.directory else { return }
        logger.info(
            "label files enabled",
            metadata: ["labels.directory": "\(directory)", "labels.format": "\(settings.format.rawValue)"]
        )
        await cancelWhenGracefulShutdown {
            for await change in self.changes where change.state == .ready {
                guard let deviceID = change.deviceID else { continue }
                self.write(deviceID: deviceID, port: change.port, directory: directory)
            }
        }
    }

    /// Makes one module's label file unless it exists; returns its path when it wrote one.
    @discardableResult
    func write(deviceID: String, port: String, directory: String) -> String? {
        do {
            guard let device = try registry.directory.device(id: deviceID) else { return nil }
            let path = (directory as NSString).appendingPathComponent(
                LabelPrinter.fileName(for: device, format: settings.format)
            )
            if FileManager.default.fileExists(atPath: path) { return nil }
            // A PDF per module is one label on a page of its own size: what a roll printer takes.
            guard
                let document = try printer.documents(
                    for: [device],
                    format: settings.format,
                    style: settings.style,
                    paper: .roll
                ).first
            else { return nil }
            try LabelFileWriter.write(document.bytes, to: path)
            try printer.recordPrinted(document, format: settings.format, destination: path, source: "daemon")
            logger.info(
                "label written",
                metadata: ["port": "\(port)", "imei": "\(device.imei)", "device": "\(deviceID)", "path": "\(path)"]
            )
            return path
        } catch {
            logger.warning(
                "cannot write the module's label: \(error)",
                metadata: ["port": "\(port)", "device": "\(deviceID)", "labels.directory": "\(directory)"]
            )
            return nil
        }
    }
}
