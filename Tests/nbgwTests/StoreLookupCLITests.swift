import Foundation
import Testing

/// The CLI finds the daemon's store through its config and never invents one.
@Suite("nbgw finds the daemon's store", .serialized)
struct StoreLookupCLITests {
    /// A daemon config in the test's directory whose [store] path does not exist yet.
    func config(_ cli: CLI) throws -> (config: String, store: String) {
        let store = cli.directory.appendingPathComponent("daemon/nbgw.sqlite").path
        let config = cli.directory.appendingPathComponent("nbgwd.toml").path
        try "[store]\npath = \"\(store)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        return (config, store)
    }

    @Test("read commands never create a store: STORE_NOT_FOUND (66) names every place tried")
    func readersNeverCreate() throws {
        let cli = try CLI()
        let (config, store) = try config(cli)
        let environment = ["NBGW_DB": "", "NBGW_CONFIG": config, "HOME": cli.directory.path]
        for command in [
            ["modems"], ["modem", "show", "490154203237518"], ["devices", "list"], ["bindings", "list"],
            ["accounts", "list"], ["homes", "list"], ["apikeys", "list"],
        ] {
            let result = CLI.finish(try cli.start(command + ["--json"], environment: environment))
            #expect(result.status == 66, "nbgw \(command.joined(separator: " ")): \(result.stdout) \(result.stderr)")
            #expect(result.errorCode == "STORE_NOT_FOUND")
            let message = (result.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("$NBGW_DB: not set") && message.contains("[store] path in \(config)"), "\(message)")
        }
        #expect(!FileManager.default.fileExists(atPath: store))
        #expect(!FileManager.default.fileExists(atPath: (store as NSString).deletingLastPathComponent))
        // A write command does not make the daemon's store either.
        let add = try cli.run("accounts", "add", "alice", environment: environment)
        #expect(add.status == 66 && add.stderr.contains("STORE_NOT_FOUND"), "\(add.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test("with the daemon's store there, every command uses it without --db or NBGW_DB; --where says why")
    func usesTheDaemonsStore() throws {
        let cli = try CLI()
        let (config, store) = try config(cli)
        // The daemon's store, as the daemon makes it (any write command with --db does too).
        #expect(try cli.run("accounts", "add", "alice", "--db", store).status == 0)
        let environment = ["NBGW_DB": "", "NBGW_CONFIG": config, "HOME": cli.directory.path]
        let listed = try cli.run("accounts", "list", "--json", environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("alice"), "\(listed.stderr)")
        let whereIs = try cli.run("--where", environment: environment.merging(["NBGW_CONTROL": "/nonexistent.sock"]) { $1 })
        #expect(whereIs.status == 0, "\(whereIs.stderr)")
        #expect(whereIs.stdout.contains("store:   \(store)"))
        #expect(whereIs.stdout.contains("because: [store] path in \(config)"))
        #expect(whereIs.stdout.contains("daemon:  not reachable on /nonexistent.sock (DAEMON_NOT_RUNNING"))
    }

    @Test("a daemon config that cannot be parsed stops the CLI with its line, not a guess")
    func badConfig() throws {
        let cli = try CLI()
        let config = cli.directory.appendingPathComponent("nbgwd.toml").path
        try "[store]\npath = relative\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try cli.run("modems", environment: ["NBGW_DB": "", "NBGW_CONFIG": config])
        #expect(result.status == 40 && result.stderr.contains("line 2"), "\(result.stderr)")
    }
}
