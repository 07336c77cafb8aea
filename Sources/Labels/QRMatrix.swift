import CQREncode

/// The modules of one QR code, made by libqrencode (no hand-written encoder).
public struct QRMatrix: Sendable, Equatable {
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row-major, `true` for a dark module.
    public let modules: [Bool]

    /// The largest payload a label carries. Why 1024 bytes: a pairing label is a URL of about 50
    /// bytes and the seed's bind JSON about 150; a version-40 code holds 2331 bytes at level M, far
    /// more than any label needs, and a denser code no longer reads at 25 mm.
    public static let maxPayloadBytes = 1024

    /// Encodes the payload's UTF-8 bytes as they are (8-bit mode), the smallest version that fits.
    public static func encode(
        _ payload: String,
        correction: QRErrorCorrection = .medium
    ) throws(LabelError) -> QRMatrix {
        let bytes = Array(payload.utf8)
        guard !bytes.isEmpty else { throw LabelError("the payload is empty: nothing to encode") }
        guard bytes.count <= maxPayloadBytes else {
            throw LabelError("the payload has \(bytes.count) bytes; a label holds at most \(maxPayloadBytes)")
        }
        let level: QRecLevel =
            switch correction {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        let code = bytes.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, level)
        }
        guard let code, let data = code.pointee.data else {
            throw LabelError("libqrencode could not encode the payload (\(bytes.count) bytes)")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        // libqrencode: bit 0 of each byte is the module's colour (1 = dark); the other bits say
        // what the module is part of.
        var modules = [Bool](repeating: false, count: width * width)
        for index in 0..<(width * width) { modules[index] = data[index] & 1 == 1 }
        return QRMatrix(size: width, modules: modules)
    }

    init(size: Int, modules: [Bool]) {
        self.size = size
        self.modules = modules
    }

    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }
}

/// A QR code's error-correction level (ISO/IEC 18004 §4.15): the share of the code that may be
/// lost (dirt, a scratch, a glare) and still read. M (15 %) by default: labels on modules in a tray.
public enum QRErrorCorrection: String, Sendable, CaseIterable {
    case low = "L"
    case medium = "M"
    case quartile = "Q"
    case high = "H"
}
