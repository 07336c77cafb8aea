import ArgumentParser
import Foundation

/// `serve`: the testbed itself. Plugs in the `--add` modules, prints `{"event":"ready",...}`, starts the
/// child (if any) with the testbed's environment, then obeys stdin until `quit`, end of input (with no
/// child), SIGTERM/SIGINT, or the child's exit, whose status becomes the testbed's.
///
/// stdin commands, one per line: `add KIND NAME [FAMILY] [KEY=VALUE]…`, `remove NAME`, `stats NAME`, `quit`.
/// `KEY=VALUE` words are udev properties put on the module's ttys, as a local rule would set them
/// (`ID_NBGW_PROBE=1`). stdout: `{"event":"ready","root":...}`,
/// `{"event":"added","name":...,"ports":[{"devnode":...}]}`, `{"event":"removed","name":...}`,
/// `{"event":"stats","name":...,"ports":[{"devnode":...,"bytesReceived":N,...}]}`,
/// `{"event":"child-exited","status":N}`, `{"event":"error","message":...}`.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Build the testbed, plug in modules, run a child under it, and take add/remove/quit on stdin."
    )

    @Option(
        name: .customLong("add"),
        help: """
            KIND:NAME[:FAMILY][:KEY=VALUE]… plugged in before the child starts (repeatable); FAMILY replaces the AT \
            simulator, KEY=VALUE sets a udev property on the module's ttys.
            """
    )
    var initialModules: [String] = []

    @Flag(
        name: .customLong("no-udev-properties"),
        help: "Leave out what udevd's stock rules add (ID_SERIAL*, ID_PATH, by-id/by-path DEVLINKS)."
    )
    var bare = false

    @Option(name: .customLong("time-scale"), help: "Multiply the simulators' scripted delays by this.")
    var timeScale: Double = 1

    @Argument(parsing: .postTerminator, help: "The child command and its arguments, after --.")
    var command: [String] = []

    func validate() throws {
        guard timeScale >= 0, timeScale <= 100 else { throw ValidationError("--time-scale must be between 0 and 100") }
        for spec in initialModules where ModuleSpec(spec) == nil {
            throw ValidationError(
                "--add \(spec): use KIND:NAME[:FAMILY][:KEY=VALUE]…, KIND one of \(FakeModuleKind.all.map(\.id))"
            )
        }
    }

    func run() throws {
        guard ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains("umockdev") == true else {
            JSONOutput.warn("run me under umockdev's preload: umockdev-wrapper nbgw-udev-testbed serve ...")
            throw ExitCode(69)
        }
        let server = TestbedServer(stockProperties: !bare, timeScale: timeScale)
        let status = try server.run(initial: initialModules.compactMap(ModuleSpec.init), command: command)
        throw ExitCode(status)
    }
}

/// `KIND:NAME[:FAMILY][:KEY=VALUE]…` or the words of `add KIND NAME [FAMILY] [KEY=VALUE]…`. A word with
/// `=` is a udev property for the module's ttys (values cannot hold `:` in the `--add` form).
struct ModuleSpec {
    var kind: FakeModuleKind
    var name: String
    var family: String?
    var properties: [String: String] = [:]

    init?(_ text: String) {
        self.init(words: text.split(separator: ":").map(String.init))
    }

    init?(words: [String]) {
        guard words.count >= 2, let kind = FakeModuleKind.named(words[0]), !words[1].isEmpty else {
            return nil
        }
        self.kind = kind
        name = words[1]
        for word in words.dropFirst(2) {
            if let equals = word.firstIndex(of: "=") {
                let key = String(word[..<equals])
                guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
                properties[key] = String(word[word.index(after: equals)...])
            } else {
                guard family == nil else { return nil }
                family = word
            }
        }
    }
}
