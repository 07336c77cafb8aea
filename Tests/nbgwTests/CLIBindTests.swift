import Foundation
import Testing

@Suite("nbgw CLI, run as a real process")
struct CLIBindTests {
    @Test("devices register is idempotent by IMEI and prints the label QR")
    func register() throws {
        let cli = try CLI()
        let first = try cli.run("devices", "register", "--imei", "490154203237518", "--json")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.json["status"] as? String == "registered")
        let again = try cli.run(
            "devices",
            "register",
            "--imei",
            "490154203237518",
            "--iccid",
            "89860012345678901234",
            "--json"
        )
        #expect(again.json["deviceId"] as? String == first.json["deviceId"] as? String)
        #expect(again.json["status"] as? String == "updated")
        #expect((again.json["qr"] as? String)?.hasPrefix("https://nbgw.local/d/") == true)
        let bad = try cli.run("devices", "register", "--imei", "490154203237519", "--json")
        #expect(bad.status == 40)
        #expect(bad.errorCode == "INVALID_ARGUMENT")
        #expect((bad.json["error"] as? [String: Any])?["message"] as? String ?? "" != "")
    }

    @Test("qr parse resolves the embedded cloud's labels and reports JSON and URL payloads")
    func parse() throws {
        let cli = try CLI()
        let (id, label) = try cli.seed()
        let fromLabel = try cli.run("qr", "parse", label, "--json")
        #expect(fromLabel.status == 0)
        #expect(fromLabel.json["kind"] as? String == "nb-bind")
        #expect(fromLabel.json["actionName"] as? String == "device_net_conn_bind_nb")
        #expect((fromLabel.json["actionData"] as? [String: Any])?["id"] as? String == id)
        let fromJSON = try cli.run(
            "qr",
            "parse",
            "{\"actionName\":\"device_net_conn_bind_nb\",\"actionData\":{\"id\":\"\(id)\"}}",
            "--json"
        )
        #expect(fromJSON.json["origin"] as? String == "json")
        let unknownLabel = try cli.run("qr", "parse", "https://nbgw.local/d/ZZZZZZZZZZZZ", "--json")
        #expect(unknownLabel.errorCode == "UNKNOWN_DEVICE")
        let foreignLabel = try cli.run("qr", "parse", "https://m.example.com/AbCdEf12", "--json")
        #expect(foreignLabel.errorCode == "QR_PROTOCOL_NOT_RECOGNIZED")
        #expect(foreignLabel.status == 10)
    }

    @Test("qr parse decodes Matter payloads with every field the issue names")
    func parseMatter() throws {
        let cli = try CLI()
        let result = try cli.run("qr", "parse", "MT:-24J042C00KA0648G00", "--json")
        #expect(result.status == 0)
        let json = result.json
        #expect(json["kind"] as? String == "matter")
        #expect(json["version"] as? Int == 0)
        #expect(json["vendorId"] as? Int == 0xFFF1)
        #expect(json["productId"] as? Int == 0x8001)
        #expect(json["vendorID"] == nil && json["productID"] == nil)
        #expect(json["commissioningFlow"] as? String == "standard")
        #expect(json["rendezvousInformation"] as? Int == 2)
        #expect(json["discriminator"] as? Int == 3840)
        #expect(json["passcode"] as? Int == 20_202_021)
        // Parsing a Matter code needs no store: nothing was created.
        #expect(!FileManager.default.fileExists(atPath: cli.database))
    }

    @Test("Untrusted payloads are never echoed raw to the terminal")
    func untrustedPayloadIsEscaped() throws {
        let cli = try CLI()
        let result = try cli.run("qr", "parse", "\u{1B}]0;pwned\u{07}hello")
        #expect(result.status == 11)
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(!result.stdout.contains("\u{1B}"))
        let long = try cli.run("qr", "parse", String(repeating: "A", count: 300), "--json")
        #expect(long.errorCode == "QR_PROTOCOL_NOT_RECOGNIZED")
        #expect(long.stdout.count < 400)
    }

    @Test("bind, repeat, conflict, unbind and rebind follow the strong-binding rules with documented exit codes")
    func bindLifecycle() throws {
        let cli = try CLI()
        let (id, label) = try cli.seed()
        let bound = try cli.run("bind", "--qr", label, "--account", "alice", "--home", "alice-home", "--json")
        #expect(bound.status == 0, "\(bound.stdout) \(bound.stderr)")
        #expect(bound.json["status"] as? String == "bound")
        #expect(bound.json["operator"] as? String == "test-operator")
        let repeated = try cli.run("bind", "--qr", label, "--account", "alice", "--home", "alice-home", "--json")
        #expect(repeated.json["status"] as? String == "unchanged")
        let conflict = try cli.run("bind", "--qr", label, "--account", "bob", "--home", "bob-home", "--json")
        #expect(conflict.status == 21)
        #expect(conflict.errorCode == "DEVICE_ALREADY_BOUND")
        let list = try cli.run("bindings", "list", "--json")
        let rows = list.json["bindings"] as? [[String: Any]] ?? []
        #expect(rows.count == 1)
        #expect(rows.first?["deviceId"] as? String == id)
        #expect(rows.first?["account"] as? String == "alice")
        #expect(rows.first?["source"] as? String == "cli")
        let bobs = try cli.run("bindings", "list", "--account", "bob", "--json").json["bindings"] as? [Any]
        #expect(bobs?.count == 0)
        let unbound = try cli.run("unbind", id, "--json")
        #expect(unbound.status == 0)
        let again = try cli.run("unbind", id, "--json")
        #expect(again.errorCode == "NOT_BOUND")
        #expect(again.status == 28)
        let rebound = try cli.run("bind", "--qr", label, "--account", "bob", "--home", "bob-home", "--json")
        #expect(rebound.json["status"] as? String == "bound")
    }

    @Test(
        "Each refusal exits with its own status and a JSON error",
        arguments: [
            (["--account", "gus", "--home", "alice-home"], "GUEST_NOT_ALLOWED_STRONG_BIND", Int32(22)),
            (["--account", "alice", "--home", "bob-home"], "HOME_ACCESS_DENIED", 27),
            (["--account", "nobody", "--home", "alice-home"], "UNKNOWN_ACCOUNT", 30),
            (["--account", "alice", "--home", "nowhere"], "UNKNOWN_HOME", 31),
            (["--account", "alice", "--home", "alice-home", "--token", "notarealtoken"], "TOKEN_INVALID", 25),
        ]
    )
    func refusals(_ extra: [String], _ code: String, _ status: Int32) throws {
        let cli = try CLI()
        let (_, label) = try cli.seed()
        let result = try cli.run(arguments: ["bind", "--qr", label, "--json"] + extra)
        #expect(result.status == status)
        #expect(result.errorCode == code)
        #expect((try cli.run("bindings", "list", "--json").json["bindings"] as? [Any])?.count == 0)
    }

    @Test("A Matter code or a foreign action cannot be bound: NOT_NB_DEVICE")
    func notNB() throws {
        let cli = try CLI()
        _ = try cli.seed()
        let matter = try cli.run("bind", "--qr", "34970112332", "--account", "alice", "--home", "alice-home", "--json")
        #expect(matter.errorCode == "NOT_NB_DEVICE")
        #expect(matter.status == 12)
        let ble = try cli.run(
            "bind",
            "--qr",
            "{\"actionName\":\"device_net_conn_bind_ble\",\"actionData\":{\"id\":\"x1\"}}",
            "--account",
            "alice",
            "--home",
            "alice-home"
        )
        #expect(ble.status == 12)
        #expect(ble.stderr.contains("NOT_NB_DEVICE"))
    }

    @Test("A token from token create works once; reusing it is TOKEN_EXPIRED")
    func tokens() throws {
        let cli = try CLI()
        let (id, label) = try cli.seed()
        let token = try cli.run("token", "create", "--home", "alice-home", "--json").json["token"] as? String ?? ""
        #expect(token.count == 20)
        let bound = try cli.run("bind", "--qr", label, "--account", "alice", "--home", "alice-home", "--token", token)
        #expect(bound.status == 0)
        try cli.run("unbind", id)
        let reused = try cli.run(
            "bind",
            "--qr",
            label,
            "--account",
            "alice",
            "--home",
            "alice-home",
            "--token",
            token,
            "--json"
        )
        #expect(reused.errorCode == "TOKEN_EXPIRED")
        #expect(reused.status == 24)
    }

    @Test("--db wins over NBGW_DB, and the store file is created with mode 0600")
    func storeLocation() throws {
        let cli = try CLI()
        let other = cli.directory.appendingPathComponent("sub/other.sqlite").path
        let result = try cli.run("accounts", "add", "carol", "--db", other)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: other))
        #expect(!FileManager.default.fileExists(atPath: cli.database))
        let mode = (try FileManager.default.attributesOfItem(atPath: other)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let listed = try cli.run("accounts", "list", "--json", "--db", other)
        #expect((listed.json["accounts"] as? [[String: Any]])?.first?["name"] as? String == "carol")
    }
}

extension CLI {
    func run(arguments: [String]) throws -> Result {
        CLI.finish(try start(arguments))
    }
}
