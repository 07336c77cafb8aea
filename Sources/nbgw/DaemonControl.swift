import Control
import Foundation
import NBGWCore

/// The CLI's way to the running daemon: its control socket (`$NBGW_CONTROL`, else the daemon
/// config's `[control] socket`, else `/run/nbgw/control.sock`; docs/control.md).
enum DaemonControl {
    /// Where the daemon listens, as far as the CLI can tell.
    static func socketPath() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["NBGW_CONTROL"], !path.isEmpty { return path }
        // An unreadable config only hides a non-default socket; the default is tried then.
        return (try? DaemonSettings.read(environment: environment))?.controlSocket(environment: environment)
            ?? ControlProtocol.defaultSocketPath
    }

    /// A connection, or `DAEMON_NOT_RUNNING` / `PERMISSION_DENIED`.
    static func connect() throws(NBGWError) -> ControlClient {
        try ControlClient.connect(to: socketPath())
    }

    /// A connection when a daemon answers; nil when none runs (the caller then works without it).
    /// Any other failure (permission) is thrown: working around a daemon one cannot reach would
    /// only fight it for the port.
    static func connectIfRunning() throws(NBGWError) -> ControlClient? {
        do {
            return try connect()
        } catch  where error.code == .daemonNotRunning {
            return nil
        }
    }
}
