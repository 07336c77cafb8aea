/// One file `nbgw labels` makes: a label (png, svg) or a sheet or stream of them (pdf, zpl).
public struct LabelDocument: Sendable, Equatable {
    /// The modules whose labels it holds, in order.
    public var deviceIDs: [String]
    /// The file name it would have in a directory (`<device id>.png`, `labels.pdf`).
    public var fileName: String
    public var bytes: [UInt8]

    public init(deviceIDs: [String], fileName: String, bytes: [UInt8]) {
        self.deviceIDs = deviceIDs
        self.fileName = fileName
        self.bytes = bytes
    }
}
