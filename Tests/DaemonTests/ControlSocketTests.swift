import Control
import Foundation
import Gateway
import Registry
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The operator's half through real processes: `nbgwd` on simulated modules, the `nbgw` CLI as a
/// second process talking to its control socket, raw clients that misbehave.
@Suite("the control socket, with real processes", .serialized, .timeLimit(.minutes(5)))
struct ControlSocketTests {
    /// A daemon on `specs`, its control socket in the test's directory.
    struct Gateway {
        let directory: TemporaryDirectory
        let simulator: SimulatorProcess
        let daemon: DaemonProcess
        var socket: String { directory.path("control.sock") }
        var environment: [String: String] { ["NBGW_CONTROL": socket, "NBGW_DB": daemon.storePath] }

        init(_ specs: [String], extra: String = "") async throws {
            directory = try TemporaryDirectory()
            simulator = try SimulatorProcess(specs, directory: directory)
            try await simulator.waitForPorts()
            daemon = try DaemonProcess(
                config: DaemonProcess.config(
                    ports: simulator.ports.map(\.path),
                    store: directory.path("store.sqlite"),
                    extra: "\n[control]\nsocket = \"\(directory.path("control.sock"))\"\n" + extra
                ),
                directory: directory
            )
            try await daemon.waitForReady()
        }

        func ready(_ count: Int) async throws -> [ModemRecord] {
            try await daemon.waitForModems("\(count) ready") { $0.filter { $0.state == "ready" }.count == count }
        }

        func audit() throws -> [AuditEntry] {
            try Registry(path: daemon.storePath).audit.entries()
        }
    }

    @Test(
        "nbgw at shares a supervised modem's session with the supervisor's polls: every answer right, nothing interleaved"
    )
    func atBetweenThePolls() async throws {
        let gateway = try await Gateway(["bg95"], extra: "\n[modem]\nsignal_poll_interval = 1\n")
        let rows = try await gateway.ready(1)
        let imei = try #require(rows.first?.imei)
        let clients = 4
        let runs = Locked([CommandRun]())
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    for _ in 0..<5 {
                        if let run = try? CommandRun.nbgw(
                            "at",
                            imei,
                            "AT+CGMM",
                            "AT+CSQ",
                            "AT+CEREG?",
                            "AT+CGSN",
                            "--json",
                            environment: gateway.environment
                        ) {
                            runs.update { $0.append(run) }
                        }
                    }
                }
            }
        }
        #expect(runs.value.count == clients * 5)
        for run in runs.value {
            #expect(run.status == 0, "\(run.stderr)")
            let results = run.json["results"] as? [[String: Any]] ?? []
            #expect(results.count == 4)
            #expect((results.first?["lines"] as? [String]) == ["BG95-M3"])
            #expect((results.last?["lines"] as? [String])?.first == imei)
            #expect(run.json["via"] as? String == "daemon")
        }
        let stats = try await gateway.simulator.stopAndReadStatistics()
        #expect(stats.first?.overlappingCommands == 0, "the module saw whole commands, one at a time")
        #expect((stats.first?.commands ?? 0) > clients * 5 * 4, "the operators' commands reached the module")
        let audited = try gateway.audit().filter { $0.event == "modem_at" }
        #expect(audited.count == clients * 5 * 4)
        #expect(audited.allSatisfy { $0.operator == ControlSocketTests.user && $0.imei == imei && $0.code == "OK" })
    }

    @Test("reset, release, resume and reprobe through the CLI: the other module carries on, each action audited")
    func actions() async throws {
        let gateway = try await Gateway(["bg95", "sim7080"])
        let rows = try await gateway.ready(2)
        let bg95 = try #require(rows.first { $0.model == "BG95-M3" })
        let other = try #require(rows.first { $0.model != "BG95-M3" })
        let imei = try #require(bg95.imei)

        let reset = try CommandRun.nbgw("modem", "reset", imei, environment: gateway.environment)
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.contains("probing") && reset.stdout.contains("ready"), "\(reset.stdout)")
        let release = try CommandRun.nbgw("modem", "release", bg95.port, environment: gateway.environment)
        #expect(release.status == 0, "\(release.stderr)")
        #expect(release.stdout.contains("released"))
        let row = try #require(try Registry(path: gateway.daemon.storePath).modems.find(imeiOrPort: imei))
        #expect(row.state == "released" && row.reason?.code == "RELEASED")
        #expect(row.reason?.message.contains(ControlSocketTests.user) == true)

        // Released: the port is free for a direct session.
        let direct = try CommandRun.nbgw("at", bg95.port, "AT+CGMM", "--json", environment: gateway.environment)
        #expect(direct.status == 0 && direct.json["via"] as? String == "port", "\(direct.stderr)")
        let busy = try CommandRun.nbgw("modem", "reset", imei, environment: gateway.environment)
        #expect(busy.status == 54 && busy.stderr.contains("MODEM_BUSY") && busy.stderr.contains("resume"))

        let resume = try CommandRun.nbgw("modem", "resume", imei, environment: gateway.environment)
        #expect(resume.status == 0 && resume.stdout.contains("ready"), "\(resume.stderr)")
        let reprobe = try CommandRun.nbgw("modem", "reprobe", imei, "--json", environment: gateway.environment)
        #expect(reprobe.status == 0, "\(reprobe.stderr)")
        #expect(reprobe.stdout.split(separator: "\n").contains { $0.contains("\"state\":\"ready\"") })

        let untouched = try #require(try Registry(path: gateway.daemon.storePath).modems.find(imeiOrPort: other.imei!))
        #expect(untouched.state == "ready" && untouched.stateSince == other.stateSince, "the other module carried on")
        let stats = try await gateway.simulator.stopAndReadStatistics()
        #expect(stats[0].reboots == 1, "one reset rebooted the BG95")
        #expect(stats[1].reboots == 0)
        let events = try gateway.audit().filter { $0.event.hasPrefix("modem_") }
        #expect(
            events.map(\.event) == ["modem_reset", "modem_release", "modem_refused", "modem_resume", "modem_reprobe"]
        )
        #expect(events.allSatisfy { $0.operator == ControlSocketTests.user && $0.imei == imei })
        #expect(events[2].code == "MODEM_BUSY")
    }

    @Test("nbgw modems --watch --json prints every transition of a reset as it happens")
    func watch() async throws {
        let gateway = try await Gateway(["bc66"])
        let imei = try #require(try await gateway.ready(1).first?.imei)
        let watcher = Process()
        watcher.executableURL = Binaries.nbgw
        watcher.arguments = ["modems", "--watch", "--json"]
        watcher.environment = Binaries.cleanEnvironment(gateway.environment)
        let output = Pipe()
        watcher.standardOutput = output
        try watcher.run()
        defer {
            watcher.terminate()
            watcher.waitUntilExit()
        }
        let lines = LineCollector(output.fileHandleForReading)
        try await lines.wait("the current list") { $0.contains("\"modems\"") }
        let reset = try CommandRun.nbgw("modem", "reset", imei, "--no-wait", environment: gateway.environment)
        #expect(reset.status == 0, "\(reset.stderr)")
        try await lines.wait("ready again") {
            $0.hasPrefix("{\"") && !$0.contains("\"modems\"") && $0.contains("\"state\":\"ready\"")
        }
        let states = lines.all.dropFirst().compactMap { line -> String? in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                object["imei"] as? String == imei
            else { return nil }
            return object["state"] as? String
        }
        #expect(states.first == "probing" && states.last == "ready", "\(states)")
        for state in ["configuring", "searching", "registering"] {
            #expect(states.contains(state), "\(state) in \(states)")
        }
    }

    @Test("refusals have their codes: ATZ without --force (55, audited), an unknown modem (53), no daemon (56)")
    func refusals() async throws {
        let gateway = try await Gateway(["bg95"])
        let imei = try #require(try await gateway.ready(1).first?.imei)
        let refused = try CommandRun.nbgw("at", imei, "ATZ", environment: gateway.environment)
        #expect(refused.status == 55, "\(refused.stderr)")
        #expect(refused.stderr.contains("COMMAND_REFUSED") && refused.stderr.contains("--force"))
        let forced = try CommandRun.nbgw("at", imei, "ATZ", "--force", environment: gateway.environment)
        #expect(forced.status == 0 && forced.stdout.contains("OK"), "\(forced.stderr)")
        #expect(forced.stderr.contains("probes"), "the operator is told the module is probed afresh")
        try await gateway.daemon.waitForModems("probed afresh and ready") { rows in
            rows.first?.state == "ready"
        }
        let console = try CommandRun.nbgw(
            "at",
            imei,
            environment: gateway.environment,
            input: "AT+CGMM\nAT+CSQ\nexit\n"
        )
        #expect(console.status == 0, "\(console.stderr)")
        #expect(console.stdout.contains("BG95-M3") && console.stdout.contains("+CSQ:"), "\(console.stdout)")
        #expect(console.stderr.contains("through nbgwd"))
        let unknown = try CommandRun.nbgw("modem", "reset", "490154203237518", environment: gateway.environment)
        #expect(unknown.status == 53 && unknown.stderr.contains("UNKNOWN_MODEM"), "\(unknown.stderr)")
        let nobody = try CommandRun.nbgw(
            "modem",
            "reset",
            imei,
            environment: ["NBGW_CONTROL": gateway.directory.path("nobody.sock")]
        )
        #expect(nobody.status == 56 && nobody.stderr.contains("DAEMON_NOT_RUNNING"), "\(nobody.stderr)")
        let audit = try gateway.audit().filter { $0.event.hasPrefix("modem_") }
        #expect(audit.map(\.event) == ["modem_refused", "modem_at", "modem_at", "modem_at", "modem_refused"])
        #expect(audit[0].code == "COMMAND_REFUSED" && audit[4].code == "UNKNOWN_MODEM")
        #expect(audit[1].detail?.contains("forced") == true)
    }

    @Test(
        "AT+CFUN=4,0 is refused without --force; a PIN spelled AT+CPIN = \"…\" reaches no log line, audit row or output"
    )
    func linesReadAsTheModuleReadsThem() async throws {
        let gateway = try await Gateway(["bg95"])
        let imei = try #require(try await gateway.ready(1).first?.imei)
        let refused = try CommandRun.nbgw("at", imei, "AT+CFUN=4,0", environment: gateway.environment)
        #expect(refused.status == 55 && refused.stderr.contains("COMMAND_REFUSED"), "\(refused.stderr)")
        #expect(refused.stderr.contains("AT+CFUN=4,0 turns the radio off"), "\(refused.stderr)")
        // The PIN from stdin (`-`), then one on argv: the second draws the warning.
        let fromStdin = try CommandRun.nbgw(
            "at",
            imei,
            "-",
            "--json",
            environment: gateway.environment,
            input: "AT+CPIN = \"1234\"\n"
        )
        let results = fromStdin.json["results"] as? [[String: Any]] ?? []
        #expect(results.first?["command"] as? String == "AT+CPIN =***", "\(fromStdin.stdout) \(fromStdin.stderr)")
        #expect(!fromStdin.stderr.contains("warning"), "no warning: the PIN was not on the command line")
        let onArgv = try CommandRun.nbgw("at", imei, "at+cpin = \"5678\"", environment: gateway.environment)
        #expect(onArgv.stderr.contains("warning: at+cpin =*** puts a secret on the command line"), "\(onArgv.stderr)")
        for output in [fromStdin.stdout, fromStdin.stderr, onArgv.stdout, onArgv.stderr, refused.stderr] {
            #expect(!output.contains("1234") && !output.contains("5678"), "\(output)")
        }
        let audit = try gateway.audit().filter { $0.event.hasPrefix("modem_") }
        #expect(audit.map(\.event) == ["modem_refused", "modem_at", "modem_at"])
        #expect(audit[0].code == "COMMAND_REFUSED" && audit[0].detail?.contains("AT+CFUN=4,0") == true)
        #expect(audit[1].detail?.contains("AT+CPIN =***") == true && audit[2].detail?.contains("at+cpin =***") == true)
        for row in audit {
            #expect(!(row.detail ?? "").contains("1234") && !(row.detail ?? "").contains("5678"), "\(row)")
        }
        let log = gateway.daemon.log
        #expect(log.contains("AT+CPIN =***") && log.contains("at+cpin =***"), "the commands are logged, masked")
        #expect(!log.contains("1234") && !log.contains("5678"))
        let rows = try await gateway.ready(1)
        #expect(rows.first?.state == "ready", "the radio stayed on: AT+CFUN=4,0 never reached the module")
    }

    @Test("a client that never reads and one that floods without reading block nobody; the flood is dropped")
    func slowClients() async throws {
        let gateway = try await Gateway(["bg95", "nrf9160"])
        _ = try await gateway.ready(2)
        let silent = try ControlClient.connect(to: gateway.socket)
        let flood = try ControlClient.connect(to: gateway.socket)
        let clock = ContinuousClock()
        var dropped = false
        let started = clock.now
        for id in 1...200_000 {
            do {
                try flood.send(ControlRequest(id: id, op: .modems))
            } catch {
                dropped = true
                break
            }
            if id % 1000 == 0, started.duration(to: clock.now) > .seconds(60) { break }
        }
        #expect(dropped, "the daemon dropped the client that never read its answers")
        let other = try ControlClient.connect(to: gateway.socket)
        let before = clock.now
        let modems: ControlModems = try other.request(ControlRequest(id: 1, op: .modems), timeout: .seconds(5))
        #expect(modems.modems.count == 2 && modems.modems.allSatisfy { $0.state == .ready })
        #expect(before.duration(to: clock.now) < .seconds(2), "answered at once")
        let deadline = clock.now + .seconds(10)
        while !gateway.daemon.log.contains("the client read nothing while"), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(gateway.daemon.log.contains("the client read nothing while"), "the drop is logged with why")
        withExtendedLifetime(silent) {}
    }

    @Test("a PIN added to the sim_pins file and SIGHUP unlock a locked module without a restart")
    func reloadUnlocks() async throws {
        let directory = try TemporaryDirectory()
        let pins = directory.path("pins.toml")
        try "# no PINs yet\n".write(toFile: pins, atomically: true, encoding: .utf8)
        chmod(pins, 0o600)
        let simulator = try SimulatorProcess(["sim7080,sim=pin,pin=2468"], directory: directory)
        try await simulator.waitForPorts()
        let daemon = try DaemonProcess(
            config: DaemonProcess.config(
                ports: simulator.ports.map(\.path),
                store: directory.path("store.sqlite"),
                extra: "\n[modem]\nsim_pins = \"\(pins)\"\n"
            ),
            directory: directory
        )
        try await daemon.waitForReady()
        let locked = try await daemon.waitForModems("locked") { $0.first?.state == "locked" }
        #expect(locked.first?.reason?.code == "SIM_PIN_REQUIRED")
        let iccid = try #require(locked.first?.iccid)
        try "[[sim]]\niccid = \"\(iccid)\"\npin = \"2468\"\n".write(toFile: pins, atomically: true, encoding: .utf8)
        chmod(pins, 0o600)
        daemon.send(SIGHUP)
        try await daemon.waitForModems("ready after the reload") { $0.first?.state == "ready" }
        #expect(daemon.log.contains("configuration reloaded: 1 SIM PIN in force"))
        #expect(!daemon.log.contains("2468"), "the PIN is never logged")
        #expect(daemon.process.isRunning)

        chmod(pins, 0o644)
        daemon.send(SIGHUP)
        try await Task.sleep(for: .milliseconds(300))
        #expect(daemon.log.contains("reload failed") && daemon.log.contains("chmod 600"))
    }

    /// The user running the tests (the audit log names it).
    static var user: String {
        getpwuid(geteuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "uid \(geteuid())"
    }
}

/// Collects a pipe's lines on a thread; tests wait for one that matches.
final class LineCollector: Sendable {
    private let lines = Locked([String]())

    init(_ handle: FileHandle) {
        let lines = self.lines
        let thread = Thread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                buffer += chunk
                while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<end], as: UTF8.self)
                    lines.update { $0.append(line) }
                    buffer.removeSubrange(...end)
                }
            }
        }
        thread.start()
    }

    var all: [String] { lines.value }

    func wait(_ what: String, timeout: Duration = .seconds(30), _ predicate: (String) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if all.contains(where: predicate) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw DaemonProcess.Failure(
            description: "no line \(what) within \(timeout); got:\n" + all.joined(separator: "\n")
        )
    }
}
