import NBGWCore
import TOMLKit

extension DaemonConfiguration {
    /// `[hooks]`: executables run on every modem state change (``HookService``, docs/operations.md
    /// "State-change hooks").
    public struct Hooks: Sendable, Equatable {
        /// The directory whose executables run; nil (or `""` in the file) runs no hooks.
        public var directory: String?
        /// How long one hook may run before it is stopped (SIGTERM, then SIGKILL after
        /// ``HookRunner/killGrace``). Why 10 s: long enough for a notification over the network,
        /// short enough that a stuck hook holds one of the ``HookService/concurrency`` slots briefly.
        public var timeout: Duration

        public init(directory: String? = nil, timeout: Duration = .seconds(10)) {
            self.directory = directory
            self.timeout = timeout
        }
    }

    /// The section's name (the other sections are listed in ``sections``).
    static let hooksSection = "hooks"

    static func readHooks(_ table: TOMLTable, _ reader: inout ConfigurationReader) -> Hooks {
        reader.checkKeys(table, at: "hooks", allowed: ["directory", "timeout"])
        var hooks = Hooks()
        if let directory = reader.string(table, "directory", at: "hooks", example: "\"/etc/nbgw/hooks.d\"") {
            if directory.isEmpty {
                hooks.directory = nil
            } else if directory.hasPrefix("/") {
                hooks.directory = directory
            } else {
                reader.report(
                    "hooks.directory",
                    "\(directory.escapedForDisplay()) is not an absolute path (the daemon's working directory is /): "
                        + "write directory = \"/etc/nbgw/hooks.d\", or \"\" for no hooks"
                )
            }
        }
        if let timeout = reader.seconds(table, "timeout", at: "hooks", in: 0.1...3600, example: "10") {
            hooks.timeout = timeout
        }
        return hooks
    }

    /// The `[hooks]` lines of the effective configuration.
    func renderedHooks(seconds: (Duration) -> String, quoted: (String) -> String) -> [String] {
        var lines = ["[hooks]"]
        lines.append(hooks.directory.map { "directory = \(quoted($0))" } ?? "# directory: not set (no hooks run)")
        lines.append("timeout = \(seconds(hooks.timeout))")
        return lines
    }
}
