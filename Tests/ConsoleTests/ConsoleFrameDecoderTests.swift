import Labels
import Testing

@testable import Console

/// Frames made from real QR codes (libqrencode, through `Labels.QRMatrix`), decoded by the real zbar.
@Suite struct ConsoleFrameDecoderTests {
    /// `text` as a QR code with a 4-module quiet zone, `scale` pixels a module, placed at (`x`, `y`)
    /// in a grey `width`×`height` frame.
    static func frame(_ text: String, scale: Int, width: Int, height: Int, x: Int, y: Int) throws -> [UInt8] {
        let matrix = try QRMatrix.encode(text)
        let quiet = 4
        var gray = [UInt8](repeating: 200, count: width * height)
        for row in 0..<(matrix.size + 2 * quiet) {
            for column in 0..<(matrix.size + 2 * quiet) {
                let module = (row: row - quiet, column: column - quiet)
                let inside = (0..<matrix.size).contains(module.row) && (0..<matrix.size).contains(module.column)
                let value: UInt8 = inside && matrix.isDark(x: module.column, y: module.row) ? 20 : 235
                for dy in 0..<scale {
                    for dx in 0..<scale {
                        let px = x + column * scale + dx
                        let py = y + row * scale + dy
                        if px < width, py < height { gray[py * width + px] = value }
                    }
                }
            }
        }
        return gray
    }

    @Test func aLabelInACameraSizedFrameIsRead() throws {
        let label = "https://nbgw.local/d/CTAH5CGRC05Y"
        let gray = try Self.frame(label, scale: 6, width: 640, height: 480, x: 150, y: 90)
        #expect(ConsoleFrameDecoder.decode(gray: gray, width: 640, height: 480) == [label])
    }

    @Test func aFrameWithoutACodeReadsNothing() {
        let gray = (0..<(320 * 240)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }
        #expect(ConsoleFrameDecoder.decode(gray: gray, width: 320, height: 240).isEmpty)
    }

    @Test func aFrameWhoseSizeDisagreesWithItsBytesIsRefusedUnread() throws {
        let gray = try Self.frame("https://nbgw.local/d/AAAA1111", scale: 4, width: 200, height: 200, x: 20, y: 20)
        #expect(ConsoleFrameDecoder.decode(gray: gray, width: 200, height: 199).isEmpty)
        #expect(ConsoleFrameDecoder.decode(gray: gray, width: 200, height: 200) == ["https://nbgw.local/d/AAAA1111"])
    }
}
