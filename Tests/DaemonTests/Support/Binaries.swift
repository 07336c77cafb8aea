import Foundation

/// The executables `swift build` puts next to the test bundle: `nbgwd`, `nbgw`, `nbgw-modem-sim`.
enum Binaries {
    /// The build's bin directory (`NBGW_BIN_DIR` overrides it).
    static let directory: URL = {
        if let explicit = ProcessInfo.processInfo.environment["NBGW_BIN_DIR"] {
            return reachableByEveryone(URL(fileURLWithPath: explicit))
        }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // Inside an .xctest bundle on some platforms: walk up to the directory holding `nbgwd`.
        for _ in 0..<4 where !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("nbgwd").path) {
            url.deleteLastPathComponent()
        }
        return reachableByEveryone(url)
    }()

    /// `directory`, or when another user could not reach it (a checkout under a 0700 directory,
    /// as `mktemp -d` makes for a fresh CI clone) a 0755 directory in the temporary directory
    /// holding hard links to its executables (copies across file systems). Why: the shared-store
    /// tests run the daemon and the CLI as unprivileged users through `setpriv`, and
    /// `exec` of a binary below a directory they cannot search fails with EACCES
    /// ("no READY=1 within 30 s" was all the test could say).
    static func reachableByEveryone(_ directory: URL) -> URL {
        var ancestor = directory.standardizedFileURL
        var reachable = true
        while true {
            var info = stat()
            if stat(ancestor.path, &info) != 0 || info.st_mode & S_IXOTH == 0 { reachable = false }
            if ancestor.path == "/" { break }
            ancestor.deleteLastPathComponent()
        }
        if reachable { return directory }
        let manager = FileManager.default
        let shared = manager.temporaryDirectory.appendingPathComponent("nbgw-test-bin-\(getpid())")
        try? manager.createDirectory(at: shared, withIntermediateDirectories: true)
        chmod(shared.path, 0o755)
        let names = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names {
            let source = directory.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: source, isDirectory: &isDirectory), !isDirectory.boolValue,
                manager.isExecutableFile(atPath: source), !name.hasSuffix(".so"), !name.hasSuffix(".o")
            else { continue }
            let target = shared.appendingPathComponent(name).path
            if manager.fileExists(atPath: target) { continue }
            if link(source, target) != 0 { try? manager.copyItem(atPath: source, toPath: target) }
        }
        return shared
    }

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
