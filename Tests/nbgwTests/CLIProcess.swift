import Foundation
import Testing

/// Runs the built `nbgw` binary as a real process against a store in a fresh temporary directory.
final class CLI: Sendable {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String

        /// stdout parsed as one JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]) ?? [:]
        }

        var errorCode: String? {
            (json["error"] as? [String: Any])?["code"] as? String
        }
    }

    let directory: URL
    let database: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = directory.appendingPathComponent("store.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The `nbgw` executable next to the test bundle (`swift build` puts both in the same bin directory).
    static let binary: URL = {
        if let explicit = ProcessInfo.processInfo.environment["NBGW_BIN"] {
            return URL(fileURLWithPath: explicit)
        }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("nbgw"),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/nbgw"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }()

    /// Starts `nbgw args…` with `NBGW_DB` pointing at this test's store; stdin is empty, or `input`.
    func start(
        _ arguments: [String],
        environment extra: [String: String] = [:],
        input: String? = nil
    ) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NBGW_DB"] = database
        environment["USER"] = "test-operator"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        return (process, out, err)
    }

    static func finish(_ started: (Process, Pipe, Pipe)) -> Result {
        let (process, out, err) = started
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self)
        )
    }

    @discardableResult
    func run(_ arguments: String..., environment: [String: String] = [:]) throws -> Result {
        CLI.finish(try start(arguments, environment: environment))
    }

    /// Runs `nbgw args…` with `input` on its stdin.
    func run(_ arguments: [String], input: String) throws -> Result {
        CLI.finish(try start(arguments, input: input))
    }

    /// Accounts alice/bob (owners) and gus (guest), homes, and one registered module; returns its id and label.
    func seed() throws -> (deviceID: String, label: String) {
        try run("accounts", "add", "alice")
        try run("accounts", "add", "bob")
        try run("accounts", "add", "gus", "--role", "guest")
        try run("homes", "add", "alice-home", "--owner", "alice")
        try run("homes", "add", "bob-home", "--owner", "bob")
        let registered = try run(
            "devices",
            "register",
            "--imei",
            "490154203237518",
            "--model",
            "BC66",
            "--manufacturer",
            "Quectel",
            "--json"
        )
        let json = registered.json
        return (json["deviceId"] as? String ?? "", json["qr"] as? String ?? "")
    }
}
