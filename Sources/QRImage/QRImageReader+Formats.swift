import CPNG
import CTurboJPEG

extension QRImageReader {
    /// A PNG through libpng's simplified read API, decoded straight to 8-bit grey: colour turned
    /// grey and transparency laid on white paper (a transparent label reads as on paper) row by
    /// row, in libpng's linear light, into the one buffer zbar then scans.
    ///
    /// Why not cairo, as before: cairo decodes a PNG only to 4 bytes a pixel, and the picture was
    /// painted on a second white surface before it was turned grey, 9 bytes a pixel at once (a
    /// 47 KB PNG of 7000×7000: 464 MB resident, security review F14). Decoded here, the picture
    /// costs its grey pixels and a row of libpng's.
    static func png(_ bytes: [UInt8], name: String) throws(QRImageError) -> GreyImage {
        // The size from the IHDR chunk (PNG §11.2.2: bytes 16–23, big-endian), checked before
        // libpng is asked anything.
        guard bytes.count >= 24 else { throw QRImageError(.unsupported, "\(name) is a truncated PNG") }
        let declaredWidth = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let declaredHeight = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        try checkSize(width: declaredWidth, height: declaredHeight, name: name)

        // libpng reads from `bytes` until the image is finished: both calls inside one closure.
        let decoded = bytes.withUnsafeBytes { raw -> Result<GreyImage, QRImageError> in
            var image = png_image()
            image.version = png_uint_32(PNG_IMAGE_VERSION)
            defer { png_image_free(&image) }
            guard png_image_begin_read_from_memory(&image, raw.baseAddress, raw.count) != 0 else {
                return .failure(QRImageError(.unsupported, "\(name) is not a readable PNG: \(message(image))"))
            }
            let width = Int(image.width)
            let height = Int(image.height)
            do throws(QRImageError) { try checkSize(width: width, height: height, name: name) } catch {
                return .failure(error)
            }
            image.format = png_uint_32(PNG_FORMAT_GRAY)
            var paper = png_color(red: 255, green: 255, blue: 255)
            var grey = [UInt8](repeating: 0, count: width * height)
            let finished = grey.withUnsafeMutableBytes { buffer in
                png_image_finish_read(&image, &paper, buffer.baseAddress, png_int_32(width), nil)
            }
            guard finished != 0 else {
                return .failure(QRImageError(.unsupported, "\(name) is not a readable PNG: \(message(image))"))
            }
            return .success(GreyImage(width: width, height: height, pixels: grey))
        }
        return try decoded.get()
    }

    /// libpng's words for what went wrong (its `message`, printable ASCII only: it may quote a
    /// chunk's name from the file).
    static func message(_ image: png_image) -> String {
        var text = image.message
        let words = withUnsafeBytes(of: &text) { raw in
            String(decoding: raw.prefix { $0 != 0 }.map { (0x20..<0x7F).contains($0) ? $0 : 0x3F }, as: UTF8.self)
        }
        return words.isEmpty ? "libpng gave no reason" : words
    }

    /// A JPEG through libjpeg-turbo, decoded straight to grey.
    static func jpeg(_ bytes: [UInt8], name: String) throws(QRImageError) -> GreyImage {
        guard let handle = tjInitDecompress() else {
            throw QRImageError(.unsupported, "\(name): libjpeg-turbo could not start a decoder")
        }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colourspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(
                handle,
                buffer.baseAddress,
                UInt(buffer.count),
                &width,
                &height,
                &subsampling,
                &colourspace
            )
        }
        guard header == 0 else {
            throw QRImageError(
                .unsupported,
                "\(name) is not a readable JPEG: \(String(cString: tjGetErrorStr2(handle)))"
            )
        }
        try checkSize(width: Int(width), height: Int(height), name: name)
        var grey = [UInt8](repeating: 0, count: Int(width) * Int(height))
        let result = bytes.withUnsafeBufferPointer { source in
            grey.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle,
                    source.baseAddress,
                    UInt(source.count),
                    target.baseAddress,
                    width,
                    width,
                    height,
                    Int32(TJPF_GRAY.rawValue),
                    0
                )
            }
        }
        // A warning (a truncated tail, say) still leaves a picture worth scanning.
        if result != 0, tjGetErrorCode(handle) == Int32(TJERR_FATAL.rawValue) {
            throw QRImageError(
                .unsupported,
                "\(name) is not a readable JPEG: \(String(cString: tjGetErrorStr2(handle)))"
            )
        }
        return GreyImage(width: Int(width), height: Int(height), pixels: grey)
    }
}
