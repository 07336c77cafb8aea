import Foundation
import Testing

@Suite("nbgw against the HTTP cloud emulator, both real processes on loopback")
struct CLICloudTests {
    /// Starts `nbgw-cloud-emulator` on a free port and returns it with its base URL.
    func startEmulator(_ cli: CLI, environment: [String: String]) throws -> (Process, String) {
        let process = Process()
        process.executableURL = CLI.binary.deletingLastPathComponent().appendingPathComponent("nbgw-cloud-emulator")
        process.arguments = ["--port", "0", "--db", cli.directory.appendingPathComponent("cloud.sqlite").path]
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The emulator prints "… listening on http://HOST:PORT" once it accepts connections.
        var buffer = Data()
        while !String(decoding: buffer, as: UTF8.self).contains("listening on http://") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        let text = String(decoding: buffer, as: UTF8.self)
        guard let range = text.range(of: "http://") else {
            process.terminate()
            throw CocoaError(.fileReadUnknown)
        }
        let url = String(text[range.lowerBound...].prefix { !$0.isWhitespace })
        return (process, url)
    }

    @Test("register, parse, bind, batch, unbind and cloud sync --check go through the signed HTTP cloud")
    func endToEnd() throws {
        let cli = try CLI()
        let credentials = [
            "NBGW_CLOUD_CLIENT_ID": "gwclient0001", "NBGW_CLOUD_SECRET": "emulatorSecret0123456789abcdef",
        ]
        let (emulator, url) = try startEmulator(cli, environment: credentials)
        defer { emulator.terminate() }
        var env = credentials
        env["NBGW_CLOUD_URL"] = url
        try cli.run("accounts", "add", "alice")
        try cli.run("homes", "add", "lab", "--owner", "alice")
        let registered = try cli.run("devices", "register", "--imei", "490154203237518", "--json", environment: env)
        #expect(registered.status == 0, "\(registered.stdout) \(registered.stderr)")
        let label = registered.json["qr"] as? String ?? ""
        let id = registered.json["deviceId"] as? String ?? ""
        #expect(!label.contains("nbgw.local"), "the label must be the HTTP cloud's: \(label)")

        let parsed = try cli.run("qr", "parse", label, "--json", environment: env)
        #expect((parsed.json["actionData"] as? [String: Any])?["id"] as? String == id)

        let bound = try cli.run(
            "bind",
            "--qr",
            label,
            "--account",
            "alice",
            "--home",
            "lab",
            "--json",
            environment: env
        )
        #expect(bound.json["status"] as? String == "bound")
        #expect(bound.json["cloudSync"] as? String == "synced")

        let unbound = try cli.run("unbind", id, "--json", environment: env)
        #expect(unbound.json["cloudSync"] as? String == "synced")

        let input = cli.directory.appendingPathComponent("labels.csv").path
        try Data("qr\n\(label)\n".utf8).write(to: URL(fileURLWithPath: input))
        let batch = try cli.run(
            "bind",
            "--csv",
            input,
            "--account",
            "alice",
            "--home",
            "lab",
            "--json",
            environment: env
        )
        #expect(batch.json["bound"] as? Int == 1)

        // The batch queued its cloud bind in the outbox; sync sends it once and finds no divergence.
        let sync = try cli.run("cloud", "sync", "--check", "--json", environment: env)
        #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
        #expect((sync.json["drain"] as? [String: Any])?["sent"] as? Int == 1)
        #expect((sync.json["check"] as? [String: Any])?["divergences"] as? [Any] != nil)
        #expect(((sync.json["check"] as? [String: Any])?["divergences"] as? [Any])?.isEmpty == true)
        let again = try cli.run("cloud", "sync", "--json", environment: env)
        #expect((again.json["drain"] as? [String: Any])?["sent"] as? Int == 0)
    }

    @Test("Without credentials the HTTP cloud is refused with a message naming the variables; argv never carries them")
    func missingCredentials() throws {
        let cli = try CLI()
        let result = try cli.run(
            "devices",
            "register",
            "--imei",
            "490154203237518",
            "--cloud",
            "http://127.0.0.1:9",
            "--json",
            environment: ["NBGW_CLOUD_CLIENT_ID": "", "NBGW_CLOUD_SECRET": ""]
        )
        #expect(result.status == 40)
        #expect((result.json["error"] as? [String: Any])?["message"] as? String ?? "" != "")
        let sync = try cli.run("cloud", "sync", "--json")
        #expect(sync.errorCode == "INVALID_ARGUMENT")
    }

    @Test("Without --cloud, the CLI on a gateway uses the daemon's [cloud] section, credentials included")
    func daemonCloudSectionApplies() throws {
        let cli = try CLI()
        let credentials = [
            "NBGW_CLOUD_CLIENT_ID": "gwclient0001", "NBGW_CLOUD_SECRET": "emulatorSecret0123456789abcdef",
        ]
        let (emulator, url) = try startEmulator(cli, environment: credentials)
        defer { emulator.terminate() }
        let config = cli.directory.appendingPathComponent("nbgwd.toml").path
        try Data(
            """
            [cloud]
            url = "\(url)"
            client_id = "gwclient0001"
            secret = "emulatorSecret0123456789abcdef"
            sync_wait = 5

            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        chmod(config, 0o600)
        // No NBGW_CLOUD_* at all: only the daemon's config says which cloud.
        let environment = ["NBGW_CONFIG": config, "NBGW_CLOUD_URL": "", "NBGW_CLOUD_CLIENT_ID": "", "NBGW_CLOUD_SECRET": ""]
        let registered = try cli.run("devices", "register", "--imei", "490154203237518", "--json", environment: environment)
        #expect(registered.status == 0, "\(registered.stdout) \(registered.stderr)")
        let label = registered.json["qr"] as? String ?? ""
        #expect(label.hasPrefix("https://label.nbgw-cloud.invalid/"), "the label must be the configured cloud's: \(label)")
        try cli.run("accounts", "add", "alice", environment: environment)
        try cli.run("homes", "add", "lab", "--owner", "alice", environment: environment)
        let bound = try cli.run("bind", "--qr", label, "--account", "alice", "--home", "lab", "--json", environment: environment)
        #expect(bound.json["cloudSync"] as? String == "synced", "\(bound.stdout) \(bound.stderr)")

        // An explicit --cloud still wins.
        let local = try cli.run(
            "devices", "register", "--imei", "490154203237526", "--cloud", "local", "--json", environment: environment
        )
        #expect((local.json["qr"] as? String ?? "").hasPrefix("https://nbgw.local/"), "\(local.stdout)")
    }
}
