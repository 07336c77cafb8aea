import CZBar

/// Reads QR codes in a camera frame with the system zbar (the same decoder as scanning an image
/// on the gateway). The browser sends the frame as 8-bit luminance, one byte per pixel, row by
/// row (zbar's `Y800`): the server needs no image-format decoder and the browser no QR library.
public enum ConsoleFrameDecoder {
    /// The largest frame accepted, in pixels a side. Why 1280: a phone's preview downscaled by the
    /// page is 640 wide; more only costs upload time and zbar time.
    public static let maxSide = 1280

    /// The texts of the QR codes found in `gray` (`width` × `height` bytes), possibly none.
    public static func decode(gray: [UInt8], width: Int, height: Int) -> [String] {
        guard width > 0, height > 0, width <= maxSide, height <= maxSide, gray.count == width * height,
            let scanner = zbar_image_scanner_create()
        else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        // Only QR codes: other symbologies would read noise in a busy frame as barcodes.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        guard let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        // fourcc('Y','8','0','0')
        let y800: UInt = 0x3030_3859
        zbar_image_set_format(image, UInt(y800))
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        return gray.withUnsafeBytes { raw -> [String] in
            // zbar reads the bytes during the scan only; no cleanup handler, the array owns them.
            zbar_image_set_data(image, raw.baseAddress, UInt(raw.count), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var texts: [String] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol {
                if let data = zbar_symbol_get_data(current) {
                    let length = Int(zbar_symbol_get_data_length(current))
                    let bytes = UnsafeRawBufferPointer(start: data, count: length)
                    texts.append(String(decoding: bytes, as: UTF8.self))
                }
                symbol = zbar_symbol_next(current)
            }
            // The image must not keep a pointer into memory that is about to go.
            zbar_image_set_data(image, nil, 0, nil)
            return texts
        }
    }
}
