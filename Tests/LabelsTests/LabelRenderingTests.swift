import Foundation
import Labels
import QRImage
import Testing

@Suite("Labels: every rendered label reads back with zbar to its exact payload")
struct LabelRenderingTests {
    static let labelURL = "https://nbgw.local/l/7KQ2M9XH4TPA"
    /// The seed's bind JSON: capitals, quotes, braces, colons: every character a scanner types with Shift.
    static let seedJSON = #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nb6f1c2a9e0b3d4c5e"}}"#
    static let lines = ["IMEI 866123456789017", "Quectel BC66", "ID nb6f1c2a9e0b3d4c5e", "code 7KQ2M9XH4TPA"]

    static func decode(png: [UInt8]) throws -> [String] {
        QRImageReader.decode(try QRImageReader.greyImage(png, name: "label.png"))
    }

    @Test(
        "a PNG decodes to its payload at every size, dpi and correction level",
        arguments: [
            (50.0, 25.0, 300, QRErrorCorrection.medium),
            (25.0, 25.0, 300, .medium),
            (25.0, 25.0, 203, .low),
            (40.0, 30.0, 600, .high),
            (30.0, 40.0, 300, .quartile),
        ]
    )
    func pngDecodes(width: Double, height: Double, dpi: Int, correction: QRErrorCorrection) throws {
        let style = LabelStyle(widthMM: width, heightMM: height, dpi: dpi, correction: correction)
        for payload in [Self.labelURL, Self.seedJSON] {
            let png = try LabelRenderer.png(Label(payload: payload, lines: Self.lines), style: style)
            #expect(try Self.decode(png: png) == [payload])
        }
    }

    @Test("a PDF sheet, rendered by pdftoppm, holds every label's code on its pages (A4, Letter, roll)")
    func pdfPagesDecode() throws {
        let labels = (0..<30).map { index in
            Label(
                payload: "https://nbgw.local/l/CODE\(1000 + index)",
                lines: ["IMEI 86612345678\(1000 + index)", "n \(index)"]
            )
        }
        for paper in LabelPaper.allCases {
            let style = LabelStyle(widthMM: 50, heightMM: 25)
            let pdf = try LabelRenderer.pdf(
                paper == .roll ? Array(labels.prefix(3)) : labels,
                style: style,
                paper: paper
            )
            #expect(pdf.starts(with: Array("%PDF".utf8)))
            let pages = try LabelImages.pages(ofPDF: pdf)
            var found: [String] = []
            for page in pages { found += try Self.decode(png: page) }
            let expected = (paper == .roll ? Array(labels.prefix(3)) : labels).map(\.payload)
            #expect(found.sorted() == expected.sorted(), "\(paper)")
            let grid = try LabelRenderer.layout(style, paper: paper)
            #expect(pages.count == (expected.count + grid.perPage - 1) / grid.perPage)
        }
    }

    @Test("a label turned and scaled still reads", arguments: [(0.0, 1.0), (17.0, 0.8), (90.0, 0.6), (200.0, 1.3)])
    func rotatedAndScaled(degrees: Double, scale: Double) throws {
        let png = try LabelRenderer.png(Label(payload: Self.seedJSON, lines: Self.lines))
        let turned = try LabelImages.transformed(png: png, degrees: degrees, scale: scale, background: 0.85)
        #expect(try Self.decode(png: turned) == [Self.seedJSON])
    }

    @Test("a photo-like JPEG (uneven light, noise, grey background) read from a file gives the payload")
    func noisyPhoto() throws {
        let png = try LabelRenderer.png(Label(payload: Self.labelURL, lines: Self.lines), style: LabelStyle(dpi: 200))
        let turned = try LabelImages.transformed(png: png, degrees: 8, scale: 1.1, background: 0.7)
        let grey = try QRImageReader.greyImage(turned, name: "turned.png")
        let jpeg = try LabelImages.photo(from: grey, noise: 40)
        let directory = try LabelImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("photo.jpg").path
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        #expect(try QRImageReader.decode(path: path) == [Self.labelURL])
    }

    @Test("an image with several codes lists them all; one with none is a clear error")
    func severalAndNone() throws {
        let pdf = try LabelRenderer.pdf(
            (0..<4).map { Label(payload: "https://nbgw.local/l/MANY\($0)", lines: []) },
            style: LabelStyle(widthMM: 40, heightMM: 40),
            paper: .a4
        )
        let page = try #require(try LabelImages.pages(ofPDF: pdf).first)
        #expect(try Self.decode(png: page).sorted() == (0..<4).map { "https://nbgw.local/l/MANY\($0)" })

        let blank = GreyImage(width: 200, height: 200, pixels: [UInt8](repeating: 255, count: 40_000))
        let directory = try LabelImages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("blank.jpg").path
        try Data(try LabelImages.photo(from: blank, noise: 3)).write(to: URL(fileURLWithPath: path))
        #expect(throws: QRImageError.self) { try QRImageReader.decode(path: path) }
        do {
            _ = try QRImageReader.decode(path: path)
        } catch {
            #expect(error.kind == .noCode)
            #expect(error.message.contains(path))
        }
        let text = directory.appendingPathComponent("notes.txt").path
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: text))
        #expect { try QRImageReader.decode(path: text) } throws: { ($0 as? QRImageError)?.kind == .unsupported }
    }

    @Test("a PNG claiming more pixels than the cap is refused before it is decoded")
    func pixelBomb() throws {
        var png = try LabelRenderer.png(Label(payload: Self.labelURL, lines: []))
        // IHDR width and height (bytes 16–23): 60000 × 60000.
        for (offset, value) in [(16, 60000), (20, 60000)] {
            for index in 0..<4 { png[offset + index] = UInt8((value >> (8 * (3 - index))) & 0xFF) }
        }
        #expect { try QRImageReader.greyImage(png, name: "bomb.png") } throws: {
            ($0 as? QRImageError)?.message.contains("megapixels") == true
        }
    }

    @Test("an SVG is a cairo SVG document of the label's size in millimetres")
    func svgDocument() throws {
        let svg = String(
            decoding: try LabelRenderer.svg(Label(payload: Self.labelURL, lines: Self.lines)),
            as: UTF8.self
        )
        #expect(svg.contains("<svg"))
        #expect(svg.contains("width=\"50mm\""))
        #expect(svg.contains("height=\"25mm\""))
    }

    @Test("ZPL: one format per label, the payload in ^BQ byte mode, ^ ~ _ escaped so data never becomes a command")
    func zpl() throws {
        let tricky = "https://nbgw.local/l/A^B~C_D"
        let text = try LabelRenderer.zpl(
            [Label(payload: Self.labelURL, lines: Self.lines), Label(payload: tricky, lines: ["x^y"])],
            style: LabelStyle(widthMM: 50, heightMM: 25, dpi: 203)
        )
        #expect(text.components(separatedBy: "^XA").count - 1 == 2)
        #expect(text.components(separatedBy: "^XZ").count - 1 == 2)
        #expect(text.contains("^BQN,2,"))
        #expect(text.contains("^FDMM,B\(String(format: "%04d", Self.labelURL.utf8.count))\(Self.labelURL)^FS"))
        #expect(text.contains("A_5EB_7EC_5FD"))
        #expect(!text.contains("A^B"))
        #expect(text.contains("^FDx_5Ey^FS"))
    }

    @Test("a label too small for its code says which size would do")
    func tooSmall() throws {
        let long = String(repeating: "https://nbgw.local/l/", count: 30)
        #expect {
            try LabelRenderer.png(
                Label(payload: long, lines: []),
                style: LabelStyle(widthMM: 12, heightMM: 12, dpi: 150)
            )
        } throws: { error in
            ((error as? LabelError)?.message.contains("at least") ?? false)
        }
        #expect(throws: LabelError.self) { try LabelStyle.parseSize("25by25") }
        let inches = try LabelStyle.parseSize("2x1in")
        #expect(inches.width == 50.8 && inches.height == 25.4)
    }
}
