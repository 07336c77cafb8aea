import Foundation
import Testing

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
        _ extra: [String: String] = [:]
    )
        throws -> Result
    {
        let process = Process()
        process.executableURL = bin.appendingPathComponent(executable)
        process.arguments = arguments
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
        let env = Self.environment
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
