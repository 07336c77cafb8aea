import Foundation
import Labels
import QRImage
import Testing

/// What reading a photo costs: `nbgw qr parse --image` on a picture just under the pixel cap holds
/// its grey pixels, not a colour copy of them; one over the cap is refused from its header (security
/// review F14: a 47 KB PNG of 7000×7000 took 464 MB).
@Suite("nbgw qr parse --image: memory bounded by the picture's grey pixels", .serialized)
struct CLIImageMemoryTests {
    /// `nbgw ARGS…` under `/usr/bin/time`: its result and its peak resident memory in KiB.
    static func measured(_ cli: CLI, _ arguments: [String]) throws -> (result: CLI.Result, peakKiB: Int) {
        let report = cli.directory.appendingPathComponent("time.txt").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", report, CLI.binary.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NBGW_DB"] = cli.database
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let result = CLI.finish((process, out, err))
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let peak = try #require(
            text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
            "/usr/bin/time wrote \(text.debugDescription)"
        )
        return (result, peak)
    }

    /// A square label of `side` millimetres at 1200 dpi, its QR code filling it, written as a PNG.
    static func bigLabel(_ cli: CLI, side: Double, payload: String) throws -> (path: String, pixels: Int) {
        let png = try LabelRenderer.png(
            Label(payload: payload, lines: []),
            style: LabelStyle(widthMM: side, heightMM: side, dpi: 1200)
        )
        let path = cli.directory.appendingPathComponent("label-\(Int(side))mm.png").path
        try Data(png).write(to: URL(fileURLWithPath: path))
        let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
        return (path, width * height)
    }

    @Test(
        "a 19.7-megapixel PNG reads with a peak of its grey pixels plus the program; a 27-megapixel one is refused",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs GNU time (tools/setup.sh)")
    )
    func peakMemory() throws {
        let cli = try CLI()
        let payload = #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nbowpzs009e7f974a5rk"}}"#
        // The program alone: the same command on a small picture.
        let small = try LabelRenderer.png(Label(payload: payload, lines: []))
        let smallPath = cli.directory.appendingPathComponent("small.png").path
        try Data(small).write(to: URL(fileURLWithPath: smallPath))
        let baseline = try Self.measured(cli, ["qr", "parse", "--image", smallPath, "--json"])
        #expect(baseline.result.status == 0, "\(baseline.result.stderr)")

        // 94 mm at 1200 dpi: 4441 × 4441.
        let big = try Self.bigLabel(cli, side: 94, payload: payload)
        #expect(big.pixels > 19_000_000 && big.pixels <= QRImageReader.maxPixels)
        let read = try Self.measured(cli, ["qr", "parse", "--image", big.path, "--json"])
        #expect(read.result.status == 0, "\(read.result.stderr)")
        #expect(read.result.stdout.contains("nbowpzs009e7f974a5rk"), "\(read.result.stdout)")
        // Grey is 1 byte a pixel and zbar's binarised copy another; cairo's colour decode held 9.
        let extra = (read.peakKiB - baseline.peakKiB) * 1024
        let perPixel = String(format: "%.1f", Double(extra) / Double(big.pixels))
        #expect(
            extra < 3 * big.pixels,
            "peak \(read.peakKiB) KiB against \(baseline.peakKiB) KiB for a small picture: \(perPixel) bytes a pixel"
        )

        // 110 mm: 5197 × 5197, over the cap: refused before anything is decoded.
        let over = try Self.bigLabel(cli, side: 110, payload: payload)
        let refused = try Self.measured(cli, ["qr", "parse", "--image", over.path, "--json"])
        #expect(refused.result.status != 0)
        #expect(refused.result.stdout.contains("at most 20 megapixels"), "\(refused.result.stdout)")
        #expect(refused.peakKiB < baseline.peakKiB + 16 * 1024, "\(refused.peakKiB) KiB")
    }
}
