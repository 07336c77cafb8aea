import Control
import Foundation
import NBGWCore
import Registry

/// `nbgw --where`: the store the commands use and the rule that chose it, the rules passed over,
/// the daemon's control socket and, when the daemon answers, whether it uses the same store.
enum Where {
    struct Report: Encodable {
        struct Daemon: Encodable {
            var socket: String
            var running: Bool
            var version: String?
            var store: String?
            var problem: String?
        }

        var store: String
        var reason: String
        var exists: Bool
        var passedOver: [String]
        var daemon: Daemon
    }

    static func report(store options: StoreOptions) throws(NBGWError) {
        let location = try options.location()
        let socket = DaemonControl.socketPath()
        var daemon = Report.Daemon(socket: socket, running: false)
        do {
            let client = try ControlClient.connect(to: socket)
            daemon.running = true
            daemon.version = client.hello.version
            daemon.store = client.hello.store
        } catch {
            daemon.problem = "\(error.code.rawValue): \(error.message)"
        }
        let report = Report(
            store: location.path,
            reason: location.reason,
            exists: FileManager.default.fileExists(atPath: location.path),
            passedOver: location.passedOver,
            daemon: daemon
        )
        if options.json {
            Output.json(report)
            return
        }
        Output.line("store:   \(report.store)\(report.exists ? "" : " (does not exist yet)")")
        Output.line("because: \(report.reason)")
        for rule in report.passedOver { Output.line("  passed over: \(rule)") }
        if daemon.running {
            Output.line("daemon:  nbgwd \(daemon.version ?? "?") on \(socket), store \(daemon.store ?? "?")")
            if let theirs = daemon.store, theirs != report.store {
                Output.line(
                    "warning: the daemon uses another store than this command would; set [store] path in its config "
                        + "(or pass --db \(theirs))"
                )
            }
        } else {
            Output.line("daemon:  not reachable on \(socket) (\(daemon.problem ?? "?"))")
        }
    }
}
