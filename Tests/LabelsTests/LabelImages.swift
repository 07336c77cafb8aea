import CCairo
import CTurboJPEG
import Foundation
import QRImage

/// Test pictures made from rendered labels with cairo and libjpeg-turbo: rotated, scaled, on a
/// grey background, with noise; and PDF pages rendered back with poppler's pdftoppm.
enum LabelImages {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nbgw-labels-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A PNG's bytes as a cairo surface (the caller destroys it).
    static func surface(png: [UInt8]) throws -> OpaquePointer {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("in.png").path
        try Data(png).write(to: URL(fileURLWithPath: path))
        guard let surface = cairo_image_surface_create_from_png(path),
            cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
        else { throw Failure(description: "cairo could not read the rendered PNG") }
        return surface
    }

    /// The label turned by `degrees` and scaled by `scale` on a canvas `canvas` times its size,
    /// on `background` grey, as PNG bytes.
    static func transformed(
        png: [UInt8],
        degrees: Double,
        scale: Double,
        canvas: Double = 1.6,
        background: Double = 1
    ) throws -> [UInt8] {
        let label = try surface(png: png)
        defer { cairo_surface_destroy(label) }
        let width = Double(cairo_image_surface_get_width(label))
        let height = Double(cairo_image_surface_get_height(label))
        let side = Int32(max(width, height) * scale * canvas)
        let target = cairo_image_surface_create(CAIRO_FORMAT_RGB24, side, side)
        defer { cairo_surface_destroy(target) }
        let context = cairo_create(target)
        cairo_set_source_rgb(context, background, background, background)
        cairo_paint(context)
        cairo_translate(context, Double(side) / 2, Double(side) / 2)
        cairo_rotate(context, degrees * .pi / 180)
        cairo_scale(context, scale, scale)
        cairo_translate(context, -width / 2, -height / 2)
        cairo_set_source_surface(context, label, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_BILINEAR)
        cairo_paint(context)
        cairo_destroy(context)
        return try pngBytes(target)
    }

    static func pngBytes(_ surface: OpaquePointer?) throws -> [UInt8] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("out.png").path
        guard cairo_surface_write_to_png(surface, path) == CAIRO_STATUS_SUCCESS else {
            throw Failure(description: "cairo could not write the PNG")
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A photo-like grey picture: the image's grey pixels, dimmed and lit unevenly (a lamp on one
    /// side), with seeded noise of ±`noise` grey levels, as a JPEG at `quality`.
    static func photo(from image: GreyImage, noise: Int, quality: Int32 = 80, seed: UInt64 = 22) throws -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        var pixels = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                let light = 0.65 + 0.3 * Double(x) / Double(image.width)
                let base = Double(pixels[y * image.width + x]) * light + 20
                let jitter = Int(generator.next() % UInt64(2 * noise + 1)) - noise
                pixels[y * image.width + x] = UInt8(clamping: Int(base) + jitter)
            }
        }
        guard let handle = tjInitCompress() else { throw Failure(description: "tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = pixels.withUnsafeBufferPointer { buffer in
            tjCompress2(
                handle,
                buffer.baseAddress,
                Int32(image.width),
                0,
                Int32(image.height),
                Int32(TJPF_GRAY.rawValue),
                &output,
                &size,
                Int32(TJSAMP_GRAY.rawValue),
                quality,
                0
            )
        }
        guard result == 0, let output else { throw Failure(description: "tjCompress2 failed") }
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Renders each page of a PDF with poppler's pdftoppm at `dpi`; the PNG bytes of each page.
    static func pages(ofPDF pdf: [UInt8], dpi: Int = 200) throws -> [[UInt8]] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("sheet.pdf")
        try Data(pdf).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        process.arguments = [
            "-r", String(dpi), "-gray", "-png", input.path, directory.appendingPathComponent("page").path,
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "pdftoppm exited \(process.terminationStatus) (is poppler-utils installed?)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasPrefix("page") && $0.hasSuffix(".png") }.sorted()
        return try names.map { Array(try Data(contentsOf: directory.appendingPathComponent($0))) }
    }
}

/// A small seeded generator: the same noise on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
