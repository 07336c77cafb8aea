/// A label's size and how its QR is made.
public struct LabelStyle: Sendable, Equatable {
    /// Width in millimetres.
    public var widthMM: Double
    /// Height in millimetres.
    public var heightMM: Double
    /// Dots per inch of a raster label (PNG) and of a ZPL printer (203, 300 or 600).
    public var dpi: Int
    public var correction: QRErrorCorrection
    /// Light modules around the code (ISO/IEC 18004 asks for 4).
    public var quietZone: Int

    /// 50 × 25 mm at 300 dpi, level M, quiet zone 4: a common roll size with the QR beside four
    /// lines of text.
    public init(
        widthMM: Double = 50,
        heightMM: Double = 25,
        dpi: Int = 300,
        correction: QRErrorCorrection = .medium,
        quietZone: Int = 4
    ) {
        self.widthMM = widthMM
        self.heightMM = heightMM
        self.dpi = dpi
        self.correction = correction
        self.quietZone = quietZone
    }

    /// `WxHmm` (`25x25mm`, `50x25`, `2x1in`): millimetres unless `in` is said.
    public static func parseSize(_ text: String) throws(LabelError) -> (width: Double, height: Double) {
        var body = Substring(text.lowercased())
        var scale = 1.0
        if body.hasSuffix("mm") {
            body = body.dropLast(2)
        } else if body.hasSuffix("in") {
            body = body.dropLast(2)
            scale = 25.4
        }
        let parts = body.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]),
            width.isFinite, height.isFinite
        else {
            throw LabelError("size \"\(text)\" is not WIDTHxHEIGHT (e.g. 25x25mm, 50x25mm, 2x1in)")
        }
        let size = (width: width * scale, height: height * scale)
        guard (10...300).contains(size.width), (10...300).contains(size.height) else {
            throw LabelError("size \"\(text)\": each side must be between 10 and 300 mm")
        }
        return size
    }

    /// Checks the values a caller may have taken from a command line.
    public func validate() throws(LabelError) {
        guard (10...300).contains(widthMM), (10...300).contains(heightMM) else {
            throw LabelError("each side of a label must be between 10 and 300 mm")
        }
        guard (72...1200).contains(dpi) else { throw LabelError("dpi \(dpi) must be between 72 and 1200") }
        guard (0...10).contains(quietZone) else { throw LabelError("the quiet zone must be 0 to 10 modules") }
    }
}
