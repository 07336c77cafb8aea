import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `nbgw` and `nbgwd` as an operator runs them, against `nbgw-kii-emulator`: real processes on
/// loopback, the owner token in the environment only.
@Suite("nbgw and nbgwd against the Kii emulator, real processes")
struct KiiCLITests {
    static let environment = [
        "NBGW_KII_OWNER": "USER:cli-owner-0001", "NBGW_KII_OWNER_TOKEN": "cli-owner-token-5f3a9c",
    ]

    /// A scratch directory with a store path.
    final class Scratch: Sendable {
        let directory: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "nbgw-kii-cli-\(UUID().uuidString)"
            )
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        var database: String { directory.appendingPathComponent("store.sqlite").path }

        /// A secrets key file, mode 0600, made on first use: `NBGW_SECRETS_KEY` for the CLI (as a
        /// developer or root runs it), `[store] secrets_key` for nbgwd.
        var secretsKey: String {
            let path = directory.appendingPathComponent("secrets.key").path
            if !FileManager.default.fileExists(atPath: path) {
                var generator = SystemRandomNumberGenerator()
                let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                FileManager.default.createFile(
                    atPath: path,
                    contents: Data(bytes),
                    attributes: [.posixPermissions: 0o600]
                )
            }
            return path
        }
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]) ?? [:]
        }
    }

    /// The bin directory `swift build` put the executables in (next to the test bundle).
    static let bin: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"),
        ]
        return candidates.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("nbgw-kii-emulator").path)
        } ?? candidates[1]
    }()

    static func run(
        _ executable: String,
        _ arguments: [String],
        _ scratch: Scratch,
        _ extra: [String: String] = [:],
        timeout: Int? = nil
    )
        throws -> Result
    {
        let process = Process()
        if let timeout {
            // A daemon that should refuse to start must not hang the test if it starts.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            process.arguments = [String(timeout), bin.appendingPathComponent(executable).path] + arguments
        } else {
            process.executableURL = bin.appendingPathComponent(executable)
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["NBGW_DB"] = scratch.database
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }

    /// Starts `nbgw-kii-emulator` on a free port; returns it and the `--cloud` spec it printed.
    static func startEmulator(_ scratch: Scratch) throws -> (Process, String) {
        let process = Process()
        process.executableURL = bin.appendingPathComponent("nbgw-kii-emulator")
        process.arguments = [
            "--port", "0", "--db", scratch.directory.appendingPathComponent("kii.sqlite").path, "--app-id", "cliapp",
            "--user", "alice",
        ]
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in Self.environment { environment[key] = value }
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer = Data()
        while !String(decoding: buffer, as: UTF8.self).contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        let text = String(decoding: buffer, as: UTF8.self)
        guard let range = text.range(of: "kii+http://") else {
            process.terminate()
            throw CocoaError(.fileReadUnknown)
        }
        return (process, String(text[range.lowerBound...].prefix { !$0.isWhitespace }))
    }

    @Test("devices register, bind, unbind and cloud sync --check with --cloud kii+http://…")
    func operatorFlow() throws {
        let scratch = try Scratch()
        let (emulator, spec) = try Self.startEmulator(scratch)
        defer { emulator.terminate() }
        _ = try Self.run("nbgw", ["accounts", "add", "alice"], scratch)
        _ = try Self.run("nbgw", ["homes", "add", "lab", "--owner", "alice"], scratch)
        // A developer's store, no daemon: the CLI holds the secrets key itself.
        var env = Self.environment
        env["NBGW_SECRETS_KEY"] = scratch.secretsKey
        let registered = try Self.run(
            "nbgw",
            ["devices", "register", "--imei", "490154203237518", "--model", "BC66", "--cloud", spec, "--json"],
            scratch,
            env
        )
        #expect(registered.status == 0, "\(registered.stdout) \(registered.stderr)")
        let id = registered.json["deviceId"] as? String ?? ""
        let label = registered.json["qr"] as? String ?? ""
        #expect(id.hasPrefix("th."))
        #expect(label.hasSuffix("/490154203237518"))

        let bound = try Self.run(
            "nbgw",
            ["bind", "--qr", label, "--account", "alice", "--home", "lab", "--cloud", spec, "--json"],
            scratch,
            env
        )
        #expect(bound.json["status"] as? String == "bound", "\(bound.stdout) \(bound.stderr)")
        #expect(bound.json["cloudSync"] as? String == "synced")

        let checked = try Self.run("nbgw", ["cloud", "sync", "--check", "--cloud", spec, "--json"], scratch, env)
        #expect(checked.status == 0, "\(checked.stdout) \(checked.stderr)")
        #expect(((checked.json["check"] as? [String: Any])?["divergences"] as? [Any])?.isEmpty == true)
        #expect((checked.json["check"] as? [String: Any])?["cloudBindings"] as? Int == 1)

        let unbound = try Self.run("nbgw", ["unbind", id, "--cloud", spec, "--json"], scratch, env)
        #expect(unbound.json["cloudSync"] as? String == "synced", "\(unbound.stdout) \(unbound.stderr)")
        let after = try Self.run("nbgw", ["cloud", "sync", "--check", "--cloud", spec, "--json"], scratch, env)
        #expect((after.json["check"] as? [String: Any])?["cloudBindings"] as? Int == 0)

        // No output of any command carries the owner token.
        for result in [registered, bound, checked, unbound, after] {
            #expect(!(result.stdout + result.stderr).contains("cli-owner-token-5f3a9c"))
        }
    }

    /// nbgwd with Kii on the emulator, the scratch store, no modem (one absent static port), no
    /// listeners; `secretsKey` as `[store] secrets_key`.
    static func daemonConfig(_ scratch: Scratch, spec: String, secretsKey: String?) -> String {
        """
        [store]
        path = "\(scratch.database)"
        \(secretsKey.map { "secrets_key = \"\($0)\"" } ?? "")

        [cloud]
        mode = "kii"
        url = "\(spec)"
        owner = "USER:cli-owner-0001"

        [discovery]
        udev = false

        [[ports]]
        path = "\(scratch.directory.appendingPathComponent("ttyABSENT").path)"

        [metrics]
        enabled = false

        [control]
        enabled = false
        """
    }

    @Test("nbgw bind without the secrets key binds locally and queues the Kii call; nbgwd, holding the key, sends it")
    func keylessBindSentByTheDaemon() async throws {
        let scratch = try Scratch()
        let (emulator, spec) = try Self.startEmulator(scratch)
        defer { emulator.terminate() }
        _ = try Self.run("nbgw", ["accounts", "add", "alice"], scratch)
        _ = try Self.run("nbgw", ["homes", "add", "lab", "--owner", "alice"], scratch)
        var root = Self.environment
        root["NBGW_SECRETS_KEY"] = scratch.secretsKey
        let registered = try Self.run(
            "nbgw",
            ["devices", "register", "--imei", "490154203237518", "--cloud", spec, "--json"],
            scratch,
            root
        )
        #expect(registered.status == 0, "\(registered.stdout) \(registered.stderr)")
        let label = registered.json["qr"] as? String ?? ""

        // An operator: no key. The binding is made; the Kii call waits for the daemon.
        let bound = try Self.run(
            "nbgw",
            ["bind", "--qr", label, "--account", "alice", "--home", "lab", "--cloud", spec, "--json"],
            scratch,
            Self.environment
        )
        #expect(bound.status == 0, "\(bound.stdout) \(bound.stderr)")
        #expect(bound.json["status"] as? String == "bound")
        #expect(bound.json["cloudSync"] as? String == "queued")
        let message = bound.json["cloudMessage"] as? String ?? ""
        #expect(message.contains("the daemon sends it"), "\(bound.stdout)")
        let synced = try Self.run("nbgw", ["cloud", "sync", "--cloud", spec], scratch, Self.environment)
        #expect(synced.status == 1)
        #expect(synced.stdout.contains("queued; the daemon sends them"), "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stdout.contains("pending=1"), "\(synced.stdout)")

        // The daemon, with the key, sends it at its first drain.
        let config = scratch.directory.appendingPathComponent("nbgwd.toml")
        try Data(Self.daemonConfig(scratch, spec: spec, secretsKey: scratch.secretsKey).utf8).write(to: config)
        let daemon = Process()
        daemon.executableURL = Self.bin.appendingPathComponent("nbgwd")
        daemon.arguments = ["--config", config.path]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "NBGW_DB")
        for (key, value) in Self.environment { environment[key] = value }
        daemon.environment = environment
        let log = scratch.directory.appendingPathComponent("nbgwd.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        daemon.standardError = try FileHandle(forWritingTo: log)
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        defer {
            if daemon.isRunning {
                daemon.terminate()
                daemon.waitUntilExit()
            }
        }
        let store = try DatabaseQueue(path: scratch.database)
        let deadline = ContinuousClock.now + .seconds(60)
        var state: String?
        while ContinuousClock.now < deadline, daemon.isRunning {
            state = try await store.read { db in
                try String.fetchOne(db, sql: "SELECT state FROM cloud_outbox WHERE operation = 'bind'")
            }
            if state == "done" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let daemonLog = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(state == "done", "the daemon did not send the bind: \(daemonLog)")
        daemon.terminate()
        daemon.waitUntilExit()
        let checked = try Self.run("nbgw", ["cloud", "sync", "--check", "--cloud", spec, "--json"], scratch, root)
        #expect((checked.json["check"] as? [String: Any])?["cloudBindings"] as? Int == 1, "\(checked.stdout)")
        for output in [bound.stdout, bound.stderr, synced.stdout, daemonLog] {
            #expect(!output.contains("cli-owner-token-5f3a9c"))
        }
    }

    @Test("nbgwd with Kii and no secrets key refuses to start (78), saying where the key comes from")
    func daemonWithoutKey() throws {
        let scratch = try Scratch()
        let config = scratch.directory.appendingPathComponent("nbgwd.toml")
        try Data(Self.daemonConfig(scratch, spec: "kii+http://127.0.0.1:9/cliapp", secretsKey: nil).utf8).write(
            to: config
        )
        let refused = try Self.run("nbgwd", ["--config", config.path], scratch, Self.environment, timeout: 30)
        #expect(refused.status == 78, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("store.secrets_key"), "\(refused.stderr)")
        #expect(refused.stderr.contains("LoadCredential=secrets.key:/etc/nbgw/credentials/secrets.key"))

        // A key others can read is refused by --check-config, naming the key and what to do.
        let key = scratch.secretsKey
        chmod(key, 0o644)
        try Data(Self.daemonConfig(scratch, spec: "kii+http://127.0.0.1:9/cliapp", secretsKey: key).utf8).write(
            to: config
        )
        let open = try Self.run("nbgwd", ["--config", config.path, "--check-config"], scratch, Self.environment)
        #expect(open.status == 78)
        #expect((open.stdout + open.stderr).contains("store.secrets_key"), "\(open.stdout) \(open.stderr)")
        #expect((open.stdout + open.stderr).contains("chmod 600"))
    }

    @Test("nbgwd --check-config accepts Kii's keys under mode \"kii\" and refuses them under another mode")
    func daemonConfiguration() throws {
        let scratch = try Scratch()
        let file = scratch.directory.appendingPathComponent("nbgwd.toml")
        func check(_ text: String, _ extra: [String: String] = [:]) throws -> Result {
            try Data(text.utf8).write(to: file)
            chmod(file.path, 0o600)
            return try Self.run("nbgwd", ["--check-config", "--config", file.path], scratch, extra)
        }
        let kii = try check(
            """
            [cloud]
            mode = "kii"
            url = "https://api-jp.kii.com"
            app_id = "abc123"
            owner = "USER:owner-1"
            owner_token = "config-file-token-77"
            request_timeout = 10
            """
        )
        #expect(kii.status == 0, "\(kii.stdout) \(kii.stderr)")
        #expect(kii.stdout.contains(#"mode = "kii""#))
        #expect(kii.stdout.contains("owner_token is set (not shown)"))
        #expect(!(kii.stdout + kii.stderr).contains("config-file-token-77"))

        let misplaced = try check(
            """
            [cloud]
            mode = "http"
            url = "https://openapi.tuyaeu.com"
            client_id = "abc"
            secret = "def-secret-000"
            owner = "USER:owner-1"
            """
        )
        #expect(misplaced.status != 0)
        #expect((misplaced.stdout + misplaced.stderr).contains("owner is not a setting of mode \"http\""))

        let noToken = try check(
            """
            [cloud]
            mode = "kii"
            url = "kii+https://api-jp.kii.com/abc123"
            owner = "USER:owner-1"
            """
        )
        #expect(noToken.status != 0)
        #expect((noToken.stdout + noToken.stderr).contains("NBGW_KII_OWNER_TOKEN"))
        let fromEnvironment = try check(
            """
            [cloud]
            mode = "kii"
            url = "kii+https://api-jp.kii.com/abc123"
            owner = "USER:owner-1"
            """,
            ["NBGW_KII_OWNER_TOKEN": "environment-token-88"]
        )
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stdout) \(fromEnvironment.stderr)")
    }
}
