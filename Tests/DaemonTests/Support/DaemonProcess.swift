import Foundation
import Registry
import Testing

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `nbgwd` process with a config file, a store and a systemd notification socket in a
/// temporary directory; its stderr (the log) goes to a file for the failure messages.
final class DaemonProcess: @unchecked Sendable {
    let directory: TemporaryDirectory
    let configPath: String
    let storePath: String
    let logPath: String
    /// Where the process's stdout goes (the udev testbed's JSON events).
    let outputPath: String
    let notifications: DatagramListener
    let process = Process()
    /// The process's stdin (the udev testbed takes `add`/`remove`/`quit` lines there).
    let input = Pipe()
    /// The metrics address from the READY=1 status line.
    private(set) var metricsBase: String?
    /// The ingest API's base URL (`http://` or `https://`) from the READY=1 status line (when enabled).
    private(set) var ingestBase: String?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes `config` (TOML) and starts `nbgwd --config FILE` with `NOTIFY_SOCKET` set.
    ///
    /// - Parameters:
    ///   - config: the config file's text; nil runs without `--config` (built-in defaults).
    ///   - watchdog: `WATCHDOG_USEC` to give the daemon, if any.
    ///   - launcher: a command that runs nbgwd as its child (`umockdev-wrapper nbgw-udev-testbed serve … --`).
    ///   - journalStream: set `JOURNAL_STREAM` to the device and inode of the log file nbgwd's stderr
    ///     goes to, as systemd does for a unit whose stderr is journald's stream.
    init(
        config: String?,
        directory: TemporaryDirectory,
        arguments: [String] = [],
        watchdog: Duration? = nil,
        environment: [String: String] = [:],
        launcher: [String] = [],
        journalStream: Bool = false
    ) throws {
        self.directory = directory
        let run = UUID().uuidString.prefix(6)
        configPath = directory.path("nbgwd.toml")
        storePath = directory.path("store.sqlite")
        logPath = directory.path("nbgwd-\(run).log")
        try config?.write(toFile: configPath, atomically: true, encoding: .utf8)
        notifications = try DatagramListener(path: "/tmp/nbgwd-notify-\(run).sock")
        // A daemon started as another user (a launcher running setpriv) must reach it too.
        if !launcher.isEmpty { chmod(notifications.socketPath, 0o666) }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        var extra = environment
        extra["NOTIFY_SOCKET"] = notifications.socketPath
        if journalStream {
            var info = stat()
            guard stat(logPath, &info) == 0 else { throw Failure(description: "stat \(logPath): errno \(errno)") }
            extra["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        }
        if let watchdog {
            let (seconds, attoseconds) = watchdog.components
            extra["WATCHDOG_USEC"] = String(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        }
        let daemon = [Binaries.nbgwd.path] + (config == nil ? [] : ["--config", configPath]) + arguments
        let command = launcher + daemon
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = Binaries.cleanEnvironment(extra)
        outputPath = directory.path("stdout-\(run).log")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardInput = input
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// A config with the ports as `[[ports]]`, udev off, metrics on a free loopback port.
    static func config(ports: [String], store: String, extra: String = "") -> String {
        var lines = [
            "[store]", "path = \"\(store)\"", "", "[discovery]", "udev = false", "", "[metrics]",
            "listen = \"127.0.0.1:0\"", "",
        ]
        for port in ports {
            lines += ["[[ports]]", "path = \"\(port)\"", ""]
        }
        return lines.joined(separator: "\n") + extra
    }

    /// Writes a line to the process's stdin.
    func write(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// stdout so far.
    var output: String {
        (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    }

    /// The log so far.
    var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Waits for READY=1 and learns the metrics address from its status line.
    @discardableResult
    func waitForReady(timeout: Duration = .seconds(30)) async throws -> String {
        let message: String
        do {
            message = try await notifications.waitFor(timeout: timeout) { $0.contains("READY=1") }
        } catch {
            throw Failure(description: "no READY=1: \(error)\n--- nbgwd log ---\n\(log)")
        }
        let status = DatagramListener.assignments(message)["STATUS"] ?? ""
        func address(after marker: String) -> String? {
            guard let range = status.range(of: marker) else { return nil }
            let scheme = marker.hasSuffix("https://") ? "https://" : "http://"
            return scheme + status[range.upperBound...].prefix { $0 != "/" && $0 != ";" }
        }
        metricsBase = address(after: "metrics on http://")
        ingestBase = address(after: "ingest on http://") ?? address(after: "ingest on https://")
        return message
    }

    /// Polls the store until `predicate` holds for its modem rows, or fails with the rows and log.
    @discardableResult
    func waitForModems(
        timeout: Duration = .seconds(60),
        _ what: String,
        _ predicate: ([ModemRecord]) -> Bool
    ) async throws -> [ModemRecord] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var rows: [ModemRecord] = []
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: storePath) {
                rows = (try? Registry(path: storePath).modems.all()) ?? rows
                if predicate(rows) { return rows }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let summary = rows.map { "\($0.port) \($0.state) \($0.imei ?? "-") \($0.deviceID ?? "-")" }
        throw Failure(
            description: "timed out waiting for \(what); rows:\n\(summary.joined(separator: "\n"))\n--- log ---\n"
                + log.split(separator: "\n").suffix(40).joined(separator: "\n")
        )
    }

    /// GET `path` on the metrics listener: status and body.
    func get(_ path: String) async throws -> (status: Int, body: String) {
        guard let base = metricsBase else { throw Failure(description: "no metrics address (call waitForReady first)") }
        return try await Self.get(base + path)
    }

    /// GET `url`, with `headers`: status and body.
    static func get(_ url: String, headers: [String: String] = [:]) async throws -> (status: Int, body: String) {
        guard let url = URL(string: url) else { throw Failure(description: "bad URL \(url)") }
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// Sends `signal` (SIGTERM, SIGKILL, …).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits (polling) for the process to exit; returns its status, or nil at the deadline.
    func waitForExit(timeout: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while process.isRunning {
            if ContinuousClock.now >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }
}
