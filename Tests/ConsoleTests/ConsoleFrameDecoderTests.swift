import Foundation
import Testing

@testable import Console

/// Frames made from real QR codes (Debian's `qrencode`, as XPM text), decoded by the real zbar.
@Suite struct ConsoleFrameDecoderTests {
    /// `text` as a QR code, `scale` pixels a module, placed at (`x`, `y`) in a grey `width`×`height` frame.
    static func frame(_ text: String, scale: Int, width: Int, height: Int, x: Int, y: Int) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/qrencode")
        process.arguments = ["-t", "XPM", "-s", "1", "-m", "4", "-o", "-", text]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            .filter { $0.hasPrefix("\"") }.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\",};")) }
        // "W H 2 1", two colour lines, then rows.
        let header = lines[0].split(separator: " ").compactMap { Int($0) }
        let dark = lines[1].contains("#000000") ? lines[1].first! : lines[2].first!
        let rows = lines[3...]
        var gray = [UInt8](repeating: 200, count: width * height)
        for (row, line) in rows.enumerated() {
            for (column, character) in line.enumerated() {
                let value: UInt8 = character == dark ? 20 : 235
                for dy in 0..<scale {
                    for dx in 0..<scale {
                        let px = x + column * scale + dx
                        let py = y + row * scale + dy
                        if px < width, py < height { gray[py * width + px] = value }
                    }
                }
            }
        }
        #expect(header[0] == rows.count)
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
