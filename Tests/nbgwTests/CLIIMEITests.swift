import Foundation
import Testing

@Suite("nbgw CLI: a module's IMEI, as its maker prints it, is a pairing code")
struct CLIIMEITests {
    static let registered = "490154203237518"
    /// Luhn-valid, and no module in the seeded store has it.
    static let elsewhere = "356938035643809"

    @Test("qr parse names a registered module by its IMEI (plain or IMEI:-prefixed) and reports one it does not know")
    func parse() throws {
        let cli = try CLI()
        let (id, _) = try cli.seed()
        for code in [Self.registered, "IMEI:\(Self.registered)", "imei: \(Self.registered)"] {
            let parsed = try cli.run("qr", "parse", code, "--json")
            #expect(parsed.status == 0, "\(code): \(parsed.stderr)")
            #expect(parsed.json["kind"] as? String == "nb-bind")
            #expect(parsed.json["origin"] as? String == "imei")
            #expect(parsed.json["imei"] as? String == Self.registered)
            #expect((parsed.json["actionData"] as? [String: Any])?["id"] as? String == id)
        }
        let unknown = try cli.run("qr", "parse", Self.elsewhere, "--json")
        #expect(unknown.status == 0, "\(unknown.stderr)")
        #expect(unknown.json["kind"] as? String == "imei")
        #expect(unknown.json["imei"] as? String == Self.elsewhere)
        let text = try cli.run("qr", "parse", Self.elsewhere)
        #expect(text.stdout.contains("kind:        imei"), "\(text.stdout)")

        let wrongDigit = try cli.run("qr", "parse", "490154203237519", "--json")
        #expect(wrongDigit.errorCode == "INVALID_QR")
        let message = (wrongDigit.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("Luhn"), "\(message)")
        let short = try cli.run("qr", "parse", "IMEI:49015420323751", "--json")
        #expect(short.errorCode == "INVALID_QR")
        // A Matter manual code (11 digits) is still one.
        #expect(try cli.run("qr", "parse", "34970112332", "--json").json["kind"] as? String == "matter")
    }

    @Test("bind takes a registered module's IMEI; one no module here has is UNKNOWN_DEVICE saying what to do")
    func bind() throws {
        let cli = try CLI()
        let (id, _) = try cli.seed()
        let bound = try cli.run(
            "bind",
            "--qr",
            "IMEI:\(Self.registered)",
            "--account",
            "alice",
            "--home",
            "alice-home",
            "--json"
        )
        #expect(bound.status == 0, "\(bound.stderr)")
        #expect(bound.json["status"] as? String == "bound")
        #expect(bound.json["deviceId"] as? String == id)
        let unknown = try cli.run(
            "bind",
            "--qr",
            Self.elsewhere,
            "--account",
            "alice",
            "--home",
            "alice-home",
            "--json"
        )
        #expect(unknown.errorCode == "UNKNOWN_DEVICE")
        let message = (unknown.json["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains(Self.elsewhere) && message.contains("plug it in"), "\(message)")
    }

    @Test("A batch binds a row that names its module by IMEI and refuses an unknown IMEI on its line")
    func batch() throws {
        let cli = try CLI()
        let (id, _) = try cli.seed()
        let csv = cli.directory.appendingPathComponent("tray.csv")
        try "qr,account,home\n\(Self.registered),alice,alice-home\n\(Self.elsewhere),alice,alice-home\n"
            .write(to: csv, atomically: true, encoding: .utf8)
        let result = try cli.run("bind", "--csv", csv.path, "--json")
        #expect(result.json["bound"] as? Int == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.json["failed"] as? Int == 1)
        let report = try String(contentsOf: URL(fileURLWithPath: csv.path + ".report.csv"), encoding: .utf8)
        #expect(report.contains("3,failed,UNKNOWN_DEVICE"), "\(report)")
        let bindings = try cli.run("bindings", "list", "--json").json["bindings"] as? [[String: Any]] ?? []
        #expect(bindings.map { $0["deviceId"] as? String } == [id])
    }
}
