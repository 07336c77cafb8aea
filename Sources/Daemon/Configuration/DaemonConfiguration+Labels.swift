import Labels
import NBGWCore
import TOMLKit

extension DaemonConfiguration {
    /// `[labels]`: a label file for every module the daemon registers (``LabelWriterService``,
    /// docs/labels-and-scanning.md).
    public struct LabelFiles: Sendable, Equatable {
        /// Where the files go (`<device id>.<format>`); nil (or `""` in the file) writes none.
        public var directory: String?
        /// png, svg, pdf (one label per page of its size) or zpl.
        public var format: LabelFormat
        /// `WxHmm`, as `nbgw labels --size`.
        public var size: String
        /// For png and zpl.
        public var dpi: Int

        public init(directory: String? = nil, format: LabelFormat = .png, size: String = "50x25mm", dpi: Int = 300) {
            self.directory = directory
            self.format = format
            self.size = size
            self.dpi = dpi
        }

        /// The label style the size and dpi say (checked when the file is read).
        public var style: LabelStyle {
            let dimensions = (try? LabelStyle.parseSize(size)) ?? (width: 50, height: 25)
            return LabelStyle(widthMM: dimensions.width, heightMM: dimensions.height, dpi: dpi)
        }
    }

    static let labelsSection = "labels"

    static func readLabels(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> LabelFiles {
        reader.checkKeys(table, at: "labels", allowed: ["directory", "format", "size", "dpi"])
        var labels = LabelFiles()
        if let directory = reader.string(table, "directory", at: "labels", example: "\"/var/lib/nbgw/labels\"") {
            if directory.isEmpty {
                labels.directory = nil
            } else if directory.hasPrefix("/") {
                labels.directory = directory
            } else {
                reader.report(
                    "labels.directory",
                    "\(directory.escapedForDisplay()) is not an absolute path (the daemon's working directory is /): "
                        + "write directory = \"/var/lib/nbgw/labels\", or \"\" for no label files"
                )
            }
        }
        if let format = reader.string(table, "format", at: "labels", example: "\"png\"") {
            if let known = LabelFormat(rawValue: format) {
                labels.format = known
            } else {
                reader.report("labels.format", "\(format.escapedForDisplay()) is not png, svg, pdf or zpl")
            }
        }
        if let size = reader.string(table, "size", at: "labels", example: "\"50x25mm\"") {
            do {
                _ = try LabelStyle.parseSize(size)
                labels.size = size
            } catch {
                reader.report("labels.size", error.message)
            }
        }
        if let dpi = reader.integer(table, "dpi", at: "labels", in: 72...1200) {
            labels.dpi = dpi
        }
        return labels
    }

    /// The `[labels]` lines of the effective configuration.
    func renderedLabels(quoted: (String) -> String) -> [String] {
        [
            "[labels]",
            labels.directory.map { "directory = \(quoted($0))" } ?? "# directory: not set (no label files)",
            "format = \(quoted(labels.format.rawValue))",
            "size = \(quoted(labels.size))",
            "dpi = \(labels.dpi)",
        ]
    }
}
