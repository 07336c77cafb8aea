import Foundation

/// The executables `swift build` puts next to the test bundle: `nbgwd`, `nbgw`, `nbgw-modem-sim`.
enum Binaries {
    /// The build's bin directory (`NBGW_BIN_DIR` overrides it).
    static let directory: URL = {
        if let explicit = ProcessInfo.processInfo.environment["NBGW_BIN_DIR"] {
            return URL(fileURLWithPath: explicit)
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // Inside an .xctest bundle on some platforms: walk up to the directory holding `nbgwd`.
        for _ in 0..<4 where !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("nbgwd").path) {
            url.deleteLastPathComponent()
        }
        return url
    }()

    static var nbgwd: URL { directory.appendingPathComponent("nbgwd") }
    static var nbgw: URL { directory.appendingPathComponent("nbgw") }
    static var simulator: URL { directory.appendingPathComponent("nbgw-modem-sim") }
    static var udevTestbed: URL { directory.appendingPathComponent("nbgw-udev-testbed") }

    /// The environment for a child process: ours without anything that would redirect it
    /// (a store, a cloud, systemd's sockets, journald's stream).
    static func cleanEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys
        where key.hasPrefix("NBGW_") || key.hasPrefix("NOTIFY_") || key.hasPrefix("WATCHDOG_")
            || key == "JOURNAL_STREAM"
        {
            environment[key] = nil
        }
        environment.merge(extra) { $1 }
        return environment
    }
}
