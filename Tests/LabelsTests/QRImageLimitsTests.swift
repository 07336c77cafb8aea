import CCairo
import Foundation
import Labels
import QRImage
import Testing

/// Untrusted images cost a bounded amount of memory: a picture above the pixel cap is refused
/// before it is decoded, naming its size and the cap; a PNG is decoded straight to grey, never held
/// in colour (security review F14); one just under the cap still reads with zbar.
@Suite("Image decoding: the pixel cap and PNGs decoded straight to grey")
struct QRImageLimitsTests {
    /// `png` with its IHDR claiming `width` × `height`.
    static func claiming(_ png: [UInt8], width: Int, height: Int) -> [UInt8] {
        var png = png
        for (offset, value) in [(16, width), (20, height)] {
            for index in 0..<4 { png[offset + index] = UInt8((value >> (8 * (3 - index))) & 0xFF) }
        }
        return png
    }

    @Test("the cap is 20 megapixels: a PNG or JPEG above it is refused naming its size and the cap")
    func aboveTheCap() throws {
        #expect(QRImageReader.maxPixels == 20_000_000)
        let png = try LabelRenderer.png(Label(payload: LabelRenderingTests.labelURL, lines: []))
        for (width, height) in [(4500, 4500), (7000, 7000), (20_001, 1000), (100_000, 201)] {
            #expect {
                try QRImageReader.greyImage(Self.claiming(png, width: width, height: height), name: "big.png")
            } throws: { error in
                let message = (error as? QRImageError)?.message ?? ""
                return (error as? QRImageError)?.kind == .unsupported
                    && message.contains("big.png is \(width)×\(height)")
                    && message.contains("at most 20 megapixels") && message.contains("scale it down")
            }
        }
        // A real JPEG whose frame header (SOF0: FF C0, length, precision, height, width) claims
        // 5000×5000: refused from its header, before anything is decoded.
        var jpeg = try LabelImages.photo(
            from: GreyImage(width: 64, height: 64, pixels: [UInt8](repeating: 200, count: 4096)),
            noise: 0
        )
        let frame = try #require((0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        for (offset, value) in [(5, 5000), (7, 5000)] {
            jpeg[frame + offset] = UInt8(value >> 8)
            jpeg[frame + offset + 1] = UInt8(value & 0xFF)
        }
        #expect {
            try QRImageReader.greyImage(jpeg, name: "photo.jpg")
        } throws: { ($0 as? QRImageError)?.message.contains("photo.jpg is 5000×5000 pixels (25.0 megapixels)") == true }
        // A header claiming 2³² − 1 on both sides is refused too, without an overflow.
        #expect(throws: QRImageError.self) {
            try QRImageReader.greyImage(Self.claiming(png, width: 0xFFFF_FFFF, height: 0xFFFF_FFFF), name: "x.png")
        }
    }

    @Test("a label photographed at 4432×4432 (19.6 megapixels, just under the cap) still reads with zbar")
    func bigButAllowed() throws {
        let label = try LabelRenderer.png(
            Label(payload: LabelRenderingTests.labelURL, lines: LabelRenderingTests.lines)
        )
        let big = try LabelImages.transformed(png: label, degrees: 7, scale: 1, canvas: 7.5, background: 0.8)
        let image = try QRImageReader.greyImage(big, name: "big.png")
        #expect(image.width * image.height > 19_000_000 && image.width * image.height <= QRImageReader.maxPixels)
        #expect(QRImageReader.decode(image) == [LabelRenderingTests.labelURL])
    }

    @Test("straight to grey: every row of a wide PNG lands where it belongs, transparency reads as white paper")
    func greyRowsAndTransparency() throws {
        let width = 5000
        let height = 300
        let surface = try #require(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)))
        defer { cairo_surface_destroy(surface) }
        cairo_surface_flush(surface)
        let data = try #require(cairo_image_surface_get_data(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<height {
            let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            let level = UInt32(y % 251)
            for x in 0..<width {
                // Premultiplied ARGB: opaque grey `level` on the left half, fully transparent on the
                // right, half-transparent black in the last column.
                if x == width - 1 {
                    row[x] = 0x8000_0000
                } else if x < width / 2 {
                    row[x] = 0xFF00_0000 | level << 16 | level << 8 | level
                } else {
                    row[x] = 0
                }
            }
        }
        cairo_surface_mark_dirty(surface)
        let png = try LabelImages.pngBytes(surface)
        let image = try QRImageReader.greyImage(png, name: "bands.png")
        #expect(image.width == width && image.height == height)
        var wrong: [String] = []
        for y in 0..<height {
            let expected = UInt8(y % 251)
            let left = image.pixels[y * width]
            let middle = image.pixels[y * width + width / 2 - 1]
            let right = image.pixels[y * width + width / 2]
            let edge = image.pixels[y * width + width - 1]
            // Half-transparent black is laid on the paper in linear light, as libpng composites:
            // 50 % of white's light is sRGB 0.735, grey 187 or 188 (not the 128 of a blend of codes).
            if left != expected || middle != expected || right != 255 || !(186...189).contains(edge) {
                wrong.append("row \(y): \(left) \(middle) \(right) \(edge), expected \(expected)")
            }
        }
        #expect(wrong.count == 0, "\(wrong.count) rows wrong, first: \(wrong.prefix(5))")
    }
}
