import CCairo
import CTurboJPEG

extension QRImageReader {
    /// A PNG through cairo (libpng), painted on white (a transparent label reads as on paper) and
    /// turned grey (ITU-R BT.601 weights, as zbar's own converters use).
    static func png(_ bytes: [UInt8], name: String) throws(QRImageError) -> GreyImage {
        // The size from the IHDR chunk (PNG §11.2.2: bytes 16–23, big-endian), checked before
        // libpng allocates anything for it.
        guard bytes.count >= 24 else { throw QRImageError(.unsupported, "\(name) is a truncated PNG") }
        let declaredWidth = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let declaredHeight = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        try checkSize(width: declaredWidth, height: declaredHeight, name: name)

        let source = ByteSource(bytes)
        guard
            let loaded = cairo_image_surface_create_from_png_stream(
                ByteSource.read,
                Unmanaged.passUnretained(source).toOpaque()
            )
        else { throw QRImageError(.unsupported, "\(name): cairo could not read the PNG") }
        defer { cairo_surface_destroy(loaded) }
        let status = cairo_surface_status(loaded)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw QRImageError(
                .unsupported,
                "\(name) is not a readable PNG: \(String(cString: cairo_status_to_string(status)))"
            )
        }
        let width = Int(cairo_image_surface_get_width(loaded))
        let height = Int(cairo_image_surface_get_height(loaded))
        try checkSize(width: width, height: height, name: name)
        guard let flat = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
            throw QRImageError(.unsupported, "\(name): no memory for a \(width)×\(height) image")
        }
        defer { cairo_surface_destroy(flat) }
        let context = cairo_create(flat)
        cairo_set_source_rgb(context, 1, 1, 1)
        cairo_paint(context)
        cairo_set_source_surface(context, loaded, 0, 0)
        cairo_paint(context)
        cairo_destroy(context)
        cairo_surface_flush(flat)
        guard let data = cairo_image_surface_get_data(flat) else {
            throw QRImageError(.unsupported, "\(name): no memory for a \(width)×\(height) image")
        }
        let stride = Int(cairo_image_surface_get_stride(flat))
        var grey = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                // RGB24: a native-endian 32-bit word 0x00RRGGBB.
                let pixel = row[x]
                let red = (pixel >> 16) & 0xFF
                let green = (pixel >> 8) & 0xFF
                let blue = pixel & 0xFF
                grey[y * width + x] = UInt8((red * 299 + green * 587 + blue * 114) / 1000)
            }
        }
        return GreyImage(width: width, height: height, pixels: grey)
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

/// Hands bytes to cairo's PNG stream reader.
final class ByteSource {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static let read: cairo_read_func_t = { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
        let source = Unmanaged<ByteSource>.fromOpaque(closure).takeUnretainedValue()
        let count = Int(length)
        guard source.offset + count <= source.bytes.count else { return CAIRO_STATUS_READ_ERROR }
        source.bytes.withUnsafeBufferPointer { buffer in
            data.update(from: buffer.baseAddress! + source.offset, count: count)
        }
        source.offset += count
        return CAIRO_STATUS_SUCCESS
    }
}
