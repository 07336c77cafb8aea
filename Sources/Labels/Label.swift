/// One label: the QR payload, exactly as `nbgw qr parse` resolves it back, and the lines a person
/// reads (IMEI, model, device id, label code).
public struct Label: Sendable, Equatable {
    public var payload: String
    public var lines: [String]

    public init(payload: String, lines: [String]) {
        self.payload = payload
        self.lines = lines
    }
}

/// What a label file is.
public enum LabelFormat: String, Sendable, CaseIterable {
    /// One raster image per label, at ``LabelStyle/dpi``.
    case png
    /// One vector image per label.
    case svg
    /// A printable document: a sheet of labels (A4, US Letter) or one label per page (a roll).
    case pdf
    /// Zebra ZPL II for industrial label printers: one `^XA … ^XZ` per label, the QR as `^BQ`.
    case zpl

    public var fileExtension: String { rawValue }

    /// One file per label (png, svg), or one file for all (pdf, zpl).
    public var isPerLabel: Bool { self == .png || self == .svg }
}

/// The page a PDF is laid out on.
public enum LabelPaper: String, Sendable, CaseIterable {
    /// ISO A4 (210 × 297 mm), a grid of labels.
    case a4
    /// US Letter (8.5 × 11 in), a grid of labels.
    case letter
    /// One label per page of the label's own size: a label printer's roll.
    case roll

    /// The page in millimetres; nil for a roll (the label's size).
    public var pageMM: (width: Double, height: Double)? {
        switch self {
        case .a4: (210, 297)
        case .letter: (215.9, 279.4)
        case .roll: nil
        }
    }
}
