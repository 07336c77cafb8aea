import QRImage

/// Reads QR codes in a camera frame with the system zbar, through the same reader as
/// `nbgw qr parse --image`. The browser sends the frame as 8-bit luminance, one byte per pixel,
/// row by row (zbar's `Y800`): the server needs no image-format decoder and the browser no QR
/// library.
public enum ConsoleFrameDecoder {
    /// The largest frame accepted, in pixels a side. Why 1280: a phone's preview downscaled by the
    /// page is 640 wide; more only costs upload time and zbar time.
    public static let maxSide = 1280

    /// The texts of the QR codes found in `gray` (`width` × `height` bytes), possibly none.
    public static func decode(gray: [UInt8], width: Int, height: Int) -> [String] {
        guard width > 0, height > 0, width <= maxSide, height <= maxSide, gray.count == width * height else {
            return []
        }
        return QRImageReader.decode(GreyImage(width: width, height: height, pixels: gray))
    }
}
