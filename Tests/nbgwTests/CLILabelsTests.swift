import Foundation
import Labels
import QRImage
import Testing

/// IMEIs with a valid Luhn check digit: `prefix` (14 digits) + check digit.
func luhnIMEI(_ body: String) -> String {
    let digits = body.compactMap { $0.wholeNumberValue }
    var sum = 0
    for (index, digit) in digits.reversed().enumerated() {
        if index % 2 == 0 {
            let doubled = digit * 2
            sum += doubled > 9 ? doubled - 9 : doubled
        } else {
            sum += digit
        }
    }
    return body + String((10 - sum % 10) % 10)
}

@Suite("nbgw labels and --image, run as real processes")
struct CLILabelsTests {
    /// alice/alice-home and `count` registered modules; their device ids.
    static func bench(_ cli: CLI, count: Int) throws -> [String] {
        try cli.run("accounts", "add", "alice")
        try cli.run("homes", "add", "alice-home", "--owner", "alice")
        return try (0..<count).map { index in
            let result = try cli.run(
                "devices",
                "register",
                "--imei",
                luhnIMEI("86612345678\(String(format: "%03d", index))"),
                "--manufacturer",
                "Quectel",
                "--model",
                "BC66",
                "--json"
            )
            return result.json["deviceId"] as! String
        }
    }

    @Test("png labels: one file per module, mode 0640, each read back by zbar to a payload that binds its module")
    func pngLabelsBind() throws {
        let cli = try CLI()
        let ids = try Self.bench(cli, count: 3)
        let out = cli.directory.appendingPathComponent("labels")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let made = try cli.run("labels", "--all", "--format", "png", "--out", out.path, "--json")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.json["labels"] as? Int == 3)
        for id in ids {
            let path = out.appendingPathComponent("\(id).png").path
            var attributes = stat()
            #expect(stat(path, &attributes) == 0)
            #expect(attributes.st_mode & 0o777 == 0o640)
            let codes = try QRImageReader.decode(path: path)
            #expect(codes.count == 1)
            let parsed = try cli.run("qr", "parse", codes[0], "--json")
            #expect((parsed.json["actionData"] as? [String: Any])?["id"] as? String == id)
            let bound = try cli.run("bind", "--image", path, "--account", "alice", "--home", "alice-home", "--json")
            #expect(bound.status == 0, "\(bound.stderr)")
            #expect(bound.json["deviceId"] as? String == id)
        }
        // Every module has a label now; a new one has not.
        let none = try cli.run("labels", "--unprinted", "--format", "png", "--out", out.path, "--json")
        #expect(none.json["labels"] as? Int == 0)
        try cli.run("devices", "register", "--imei", luhnIMEI("86612345678999"))
        let fresh = try cli.run("labels", "--unprinted", "--format", "svg", "--out", out.path, "--json")
        #expect(fresh.json["labels"] as? Int == 1)
    }

    @Test("a PDF sheet, rendered back by pdftoppm, lists every code; bind --image binds them all")
    func pdfSheetBinds() throws {
        let cli = try CLI()
        let ids = try Self.bench(cli, count: 5)
        let sheet = cli.directory.appendingPathComponent("sheet.pdf").path
        let made = try cli.run("labels", "--all", "--format", "pdf", "--out", sheet)
        #expect(made.status == 0, "\(made.stderr)")
        let prefix = cli.directory.appendingPathComponent("page").path
        let render = Process()
        render.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        render.arguments = ["-r", "200", "-png", "-singlefile", sheet, prefix]
        try render.run()
        render.waitUntilExit()
        #expect(render.terminationStatus == 0)
        let page = prefix + ".png"
        let parsed = try cli.run("qr", "parse", "--image", page)
        #expect(parsed.status == 0, "\(parsed.stderr)")
        for id in ids { #expect(parsed.stdout.contains(id)) }
        #expect(parsed.stdout.contains("code 5 of 5"))
        let bound = try cli.run("bind", "--image", page, "--account", "alice", "--home", "alice-home")
        #expect(bound.status == 0, "\(bound.stderr)")
        #expect(bound.stdout.components(separatedBy: "bound: device").count - 1 == 5)
        let listed = try cli.run("bindings", "list", "--json")
        for id in ids { #expect(listed.stdout.contains(id)) }
    }

    @Test("zpl and stdout: one stream of ^XA…^XZ formats; several png files cannot go to stdout")
    func zplAndStdout() throws {
        let cli = try CLI()
        let ids = try Self.bench(cli, count: 2)
        let zpl = try cli.run("labels", ids[0], ids[1], "--format", "zpl", "--dpi", "203", "--out", "-")
        #expect(zpl.status == 0, "\(zpl.stderr)")
        #expect(zpl.stdout.components(separatedBy: "^XA").count - 1 == 2)
        #expect(zpl.stdout.contains("^BQN,2,"))
        let refused = try cli.run("labels", "--all", "--format", "png", "--out", "-", "--json")
        #expect(refused.errorCode == "INVALID_ARGUMENT")
        let unknown = try cli.run("labels", "nb-nope", "--json")
        #expect(unknown.errorCode == "UNKNOWN_DEVICE")
    }

    @Test("qr parse --image lists every code, one that does not parse with its error; --json is one document")
    func imageWithACodeThatDoesNotParse() throws {
        let cli = try CLI()
        let bind = #"{"actionName":"device_net_conn_bind_nb","actionData":{"id":"nb-sheet-1"}}"#
        let payloads = [bind, "hello", "MT:-24J042C00KA0648G00"]
        let pdf = try LabelRenderer.pdf(
            payloads.map { Label(payload: $0, lines: []) },
            style: LabelStyle(widthMM: 40, heightMM: 40),
            paper: .a4
        )
        let sheet = cli.directory.appendingPathComponent("mixed.pdf")
        try Data(pdf).write(to: sheet)
        let prefix = cli.directory.appendingPathComponent("mixed").path
        let render = Process()
        render.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        render.arguments = ["-r", "200", "-png", "-singlefile", sheet.path, prefix]
        try render.run()
        render.waitUntilExit()
        let page = prefix + ".png"

        let text = try cli.run("qr", "parse", "--image", page)
        // The failure's exit status (QR_PROTOCOL_NOT_RECOGNIZED: 10), after every code was listed.
        #expect(text.status == 10, "\(text.stderr)")
        #expect(text.stdout.contains("code 3 of 3"))
        #expect(text.stdout.contains("device id:   nb-sheet-1"))
        #expect(text.stdout.contains("kind:                  matter"))
        #expect(text.stdout.contains("error: QR_PROTOCOL_NOT_RECOGNIZED"))

        let json = try cli.run("qr", "parse", "--image", page, "--json")
        #expect(json.status == 10)
        // One JSON document, not a line per code.
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any],
            "\(json.stdout)"
        )
        #expect(document["image"] as? String == page)
        let codes = try #require(document["codes"] as? [[String: Any]])
        #expect(codes.map { $0["index"] as? Int } == [1, 2, 3])
        #expect(Set(codes.compactMap { $0["payload"] as? String }) == Set(payloads))
        for code in codes {
            let result = code["result"] as? [String: Any]
            let error = code["error"] as? [String: Any]
            switch code["payload"] as? String {
            case bind: #expect((result?["actionData"] as? [String: Any])?["id"] as? String == "nb-sheet-1")
            case "hello": #expect(error?["code"] as? String == "QR_PROTOCOL_NOT_RECOGNIZED" && result == nil)
            default: #expect(result?["kind"] as? String == "matter" && error == nil)
            }
        }
    }

    @Test("an image without a code is INVALID_QR naming the file; a text file is INVALID_ARGUMENT")
    func imageErrors() throws {
        let cli = try CLI()
        let text = cli.directory.appendingPathComponent("note.txt").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        let notImage = try cli.run("qr", "parse", "--image", text, "--json")
        #expect(notImage.errorCode == "INVALID_ARGUMENT")
        // A picture without a code: a module's roll label rendered by pdftoppm, cropped to its text.
        _ = try Self.bench(cli, count: 1)
        let blank = Process()
        blank.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        let white = cli.directory.appendingPathComponent("white.png").path
        let roll = cli.directory.appendingPathComponent("roll.pdf").path
        _ = try cli.run("labels", "--all", "--format", "pdf", "--paper", "roll", "--out", roll)
        blank.arguments = [
            "-r", "150", "-png", "-singlefile", "-x", "160", "-y", "0", "-W", "130", "-H", "140", roll,
            String(white.dropLast(4)),
        ]
        try blank.run()
        blank.waitUntilExit()
        let none = try cli.run("qr", "parse", "--image", white, "--json")
        #expect(none.errorCode == "INVALID_QR", "\(none.stdout)")
        #expect(none.stdout.contains("white.png"))
    }
}
