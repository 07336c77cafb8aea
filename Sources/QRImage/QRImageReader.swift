import CTurboJPEG
import CZBar
import Foundation

/// Reads the QR codes in a photo or a scan: PNG (libpng) or JPEG (libjpeg-turbo), both decoded
/// straight to grey, then zbar's scanner with only its QR decoder enabled. No hand-written decoder.
///
/// Images are untrusted: the file is capped at ``maxFileBytes`` and the picture at ``maxPixels``
/// before anything decodes it (a small PNG can claim a huge size), and each code's bytes are
/// returned as they are; callers parse them with `QRPayloadParser` like any scan.
public enum QRImageReader {
    /// Why 32 MiB: a 24-megapixel camera JPEG is 5–12 MiB; a PNG scan of an A4 sheet at 300 dpi is
    /// under 10 MiB.
    public static let maxFileBytes = 32 << 20
    /// Why 20 megapixels: above a phone's photo (12 MP, 4000×3000, what 48 and 50 MP sensors save
    /// by default), a 20 MP camera's (5472×3648) and an A4 sheet scanned at 300 dpi (8.7 MP). Decoded
    /// straight to grey, `nbgw qr parse --image` of a 4472×4472 (20.0 MP) PNG peaked at 52 MB, 35 MB
    /// of it the program itself (debug build; 209 MB through cairo); a 50 MP cap allowed 465 MB for
    /// a 160 KB PNG of 7000×7000 (security review F14), now refused from its header at 35 MB.
    public static let maxPixels = 20_000_000

    /// The codes in the image at `path`, in the order zbar found them (an image of a sheet lists
    /// them all). An image without a code is ``QRImageError/Kind/noCode``.
    public static func decode(path: String) throws(QRImageError) -> [String] {
        let bytes = try read(path)
        let image = try greyImage(bytes, name: path)
        let codes = decode(image)
        guard !codes.isEmpty else {
            throw QRImageError(
                .noCode,
                "no QR code found in \(path) (\(image.width)×\(image.height)): photograph the label straight on, "
                    + "in focus, with the whole code and its white border in the picture"
            )
        }
        return codes
    }

    /// The codes zbar finds in a grey image; empty when there are none.
    public static func decode(_ image: GreyImage) -> [String] {
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        // Only QR: the other symbologies' decoders find phantom EAN and Code 39 bars in a QR's modules.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        guard let zimage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zimage) }
        // 'Y800': 8-bit grey, little-endian fourcc.
        let y800 = UInt(0x59) | UInt(0x38) << 8 | UInt(0x30) << 16 | UInt(0x30) << 24
        zbar_image_set_format(zimage, y800)
        zbar_image_set_size(zimage, UInt32(image.width), UInt32(image.height))
        var codes: [String] = []
        image.pixels.withUnsafeBufferPointer { buffer in
            zbar_image_set_data(zimage, buffer.baseAddress, UInt(buffer.count), nil)
            guard zbar_scan_image(scanner, zimage) > 0 else { return }
            var symbol = zbar_image_first_symbol(zimage)
            while let current = symbol {
                if let data = zbar_symbol_get_data(current) {
                    let length = Int(zbar_symbol_get_data_length(current))
                    let bytes = UnsafeRawBufferPointer(start: data, count: length)
                    codes.append(String(decoding: bytes, as: UTF8.self))
                }
                symbol = zbar_symbol_next(current)
            }
            // The buffer belongs to the array: zbar must not keep pointing at it.
            zbar_image_set_data(zimage, nil, 0, nil)
        }
        return codes
    }

    /// An image file's bytes decoded to grey: PNG or JPEG, told apart by their signatures.
    public static func greyImage(_ bytes: [UInt8], name: String) throws(QRImageError) -> GreyImage {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return try png(bytes, name: name)
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            return try jpeg(bytes, name: name)
        }
        throw QRImageError(.unsupported, "\(name) is neither a PNG nor a JPEG image; save the photo or scan as one")
    }

    static func read(_ path: String) throws(QRImageError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw QRImageError(.unreadable, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw QRImageError(.unreadable, "\(path) is not a regular file")
        }
        guard status.st_size <= maxFileBytes else {
            throw QRImageError(
                .unreadable,
                "\(path) has \(status.st_size) bytes; an image may have at most \(maxFileBytes) (32 MiB)"
            )
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress! + offset, raw.count - offset)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw QRImageError(.unreadable, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            offset += count
        }
        return bytes
    }

    /// 7000 × 7000 → "49.0", 4000 × 3001 → "12.0" (in floating point: a PNG header may claim 2³² × 2³²).
    static func megapixels(width: Int, height: Int) -> String {
        String(format: "%.1f", Double(width) * Double(height) / 1e6)
    }

    static func checkSize(width: Int, height: Int, name: String) throws(QRImageError) {
        guard width > 0, height > 0 else { throw QRImageError(.unsupported, "\(name) has no pixels") }
        guard width <= 100_000, height <= 100_000, width * height <= maxPixels else {
            throw QRImageError(
                .unsupported,
                "\(name) is \(width)×\(height) pixels (\(megapixels(width: width, height: height)) megapixels); an image may have at "
                    + "most \(maxPixels / 1_000_000) megapixels: crop it to the label or scale it down (a label's QR "
                    + "code reads from a few hundred pixels across)"
            )
        }
    }
}
