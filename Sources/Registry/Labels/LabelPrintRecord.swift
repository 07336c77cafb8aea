import Foundation

/// One label made for a module (migration v10's `label_print`).
public struct LabelPrintRecord: Sendable, Equatable, Codable {
    public var deviceID: String
    public var printedAt: Date
    /// `png`, `svg`, `pdf` or `zpl`.
    public var format: String
    /// The file it went to; nil for standard output.
    public var destination: String?
    /// `cli` or `daemon`.
    public var source: String
    public var `operator`: String?

    enum CodingKeys: String, CodingKey {
        case deviceID = "deviceId"
        case printedAt, format, destination, source, `operator`
    }
}
