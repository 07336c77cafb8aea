import Foundation
import Testing

/// `nbgw modem probe` and `nbgw at` as real processes against the real `nbgw-modem-sim` process,
/// over real pseudo-terminals: every family, every fault, and the documented exit codes.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CLIModemTests {
    /// A running `nbgw-modem-sim`.
    final class Simulator {
        let process = Process()
        let output = Pipe()
        let input = Pipe()
        private(set) var paths: [String] = []

        /// `nbgw-modem-sim` sits next to `nbgw` in the build's bin directory.
        static let binary = CLI.binary.deletingLastPathComponent().appendingPathComponent("nbgw-modem-sim")

        init(_ specs: [String], timeScale: Double = 0.05) throws {
            process.executableURL = Self.binary
            process.arguments = specs.flatMap { ["--port", $0] } + ["--time-scale", String(timeScale)]
            process.standardOutput = output
            process.standardInput = input
            process.standardError = FileHandle.nullDevice
            try process.run()
            var buffer = Data()
            while paths.count < specs.count {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                buffer += chunk
                let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
                paths = lines.compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["path"] as? String
                }
            }
        }

        /// Sends SIGTERM and returns the statistics line.
        func stop() -> [[String: Any]] {
            process.terminate()
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let last = String(decoding: rest, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            let json = (try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]) ?? [:]
            return json["stats"] as? [[String: Any]] ?? []
        }

        /// Sends a control line ("0 hangup").
        func control(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        deinit {
            if process.isRunning { process.terminate() }
        }
    }

    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    static let families: [(spec: String, dialect: String, baud: Int, technology: String)] = [
        ("bc95", "quectel-bc95", 9600, "nb-iot"), ("bc66", "quectel-bc66", 115_200, "nb-iot"),
        ("bg95", "quectel-bg9x", 115_200, "lte-m"), ("sim7080", "simcom-sim7080", 115_200, "lte-m"),
        ("sara-r410", "ublox-sara-r4", 115_200, "lte-m"), ("generic", "3gpp", 115_200, "lte"),
    ]

    @Test func probesEveryFamilyAsJSON() throws {
        let simulator = try Simulator(Self.families.map(\.spec) + ["nrf9160"])
        for (index, family) in Self.families.enumerated() {
            let result = try cli.run("modem", "probe", simulator.paths[index], "--json")
            #expect(result.status == 0, "\(family.spec): \(result.stderr)")
            let json = result.json
            #expect(
                Set(json.keys) == [
                    "imei", "imsi", "iccid", "manufacturer", "model", "firmware", "dialect", "baud", "sim",
                    "registration",
                    "signal", "operator",
                ]
            )
            #expect(json["dialect"] as? String == family.dialect)
            #expect(json["baud"] as? Int == family.baud)
            #expect((json["imei"] as? String)?.count == 15)
            #expect(json["sim"] as? String == "ready")
            let registration = json["registration"] as? [String: Any] ?? [:]
            #expect(registration["stat"] as? Int == 1, "\(family.spec): \(registration)")
            #expect(registration["technology"] as? String == family.technology)
            #expect(registration["reject_cause"] is NSNull)
        }
        // nRF9160: radio off, so unknown values are null.
        let nordic = try cli.run("modem", "probe", simulator.paths[Self.families.count], "--json").json
        #expect(nordic["operator"] is NSNull)
        #expect((nordic["signal"] as? [String: Any])?["rsrp_dbm"] is NSNull)
        let stats = simulator.stop()
        #expect(stats.count == Self.families.count + 1)
        #expect(stats.allSatisfy { ($0["commands"] as? Int ?? 0) > 10 })
    }

    @Test func humanOutput() throws {
        let simulator = try Simulator(["bc95"])
        let result = try cli.run("modem", "probe", simulator.paths[0])
        #expect(result.status == 0)
        #expect(result.stdout.contains("at 9600 baud"))
        #expect(result.stdout.contains("imei          866971030221902"))
        #expect(result.stdout.contains("registered_home (stat 1), TAC 1A2B"))
        _ = simulator.stop()
    }

    @Test func explicitBaud() throws {
        let simulator = try Simulator(["bc95", "bg95"])
        #expect(
            try cli.run("modem", "probe", simulator.paths[0], "--baud", "9600", "--json").json["baud"] as? Int == 9600
        )
        // At a speed it does not use, the BC95 is no modem at all.
        let wrong = try cli.run("modem", "probe", simulator.paths[0], "--baud", "115200", "--json")
        #expect(wrong.status == 50 && wrong.errorCode == "NOT_A_MODEM")
        #expect(try cli.run("modem", "probe", simulator.paths[1], "--baud", "12345").status == 64)
        _ = simulator.stop()
    }

    @Test func notAModemIsExit50WithinSeconds() throws {
        let simulator = try Simulator(["diag", "nmea"])
        for path in simulator.paths {
            let start = Date()
            let result = try cli.run("modem", "probe", path, "--json")
            #expect(result.status == 50)
            #expect(result.errorCode == "NOT_A_MODEM")
            #expect(Date().timeIntervalSince(start) < 6)
        }
        let text = try cli.run("modem", "probe", simulator.paths[0])
        #expect(text.stderr.hasPrefix("error: NOT_A_MODEM: "))
        _ = simulator.stop()
    }

    @Test func deadPortIsExit51() throws {
        let missing = try cli.run("modem", "probe", "/dev/ttyNBGW-none", "--json")
        #expect(missing.status == 51 && missing.errorCode == "DEAD_PORT")
        let simulator = try Simulator(["bg95,fault=hangup:5", "bg95"])
        let hungUp = try cli.run("modem", "probe", simulator.paths[0], "--json")
        #expect(hungUp.status == 51 && hungUp.errorCode == "DEAD_PORT", "\(hungUp.stdout)")
        // A hang-up requested on the control channel.
        simulator.control("1 hangup")
        var status: Int32 = 0
        for _ in 0..<50 where status != 51 {
            status = try cli.run("modem", "probe", simulator.paths[1], "--json").status
        }
        #expect(status == 51)
        _ = simulator.stop()
    }

    @Test func modemErrorIsExit52() throws {
        let simulator = try Simulator(["bg95,fault=errors"])
        let result = try cli.run("modem", "probe", simulator.paths[0], "--json")
        #expect(result.status == 52 && result.errorCode == "MODEM_ERROR")
        _ = simulator.stop()
    }

    @Test(arguments: [
        "bg95,fault=garbage", "bc95,fault=urc-in-response", "bg95,fault=no-answer:AT+CESQ", "bc95,fault=reboot:7",
        "sim7080,fault=reboot:9", "bg95,sim=missing", "generic,registration=denied",
    ])
    func faultsStillGiveCorrectJSON(_ spec: String) throws {
        let simulator = try Simulator([spec])
        let result = try cli.run("modem", "probe", simulator.paths[0], "--json")
        #expect(result.status == 0, "\(spec): \(result.stdout) \(result.stderr)")
        #expect((result.json["imei"] as? String)?.count == 15)
        let registration = result.json["registration"] as? [String: Any] ?? [:]
        switch spec {
        case "bg95,sim=missing":
            #expect(result.json["sim"] as? String == "not_inserted" && result.json["imsi"] is NSNull)
        case "generic,registration=denied":
            #expect(registration["state"] as? String == "denied" && registration["reject_cause"] as? Int == 15)
        case "bg95,fault=no-answer:AT+CESQ":
            #expect((result.json["signal"] as? [String: Any])?["rsrp_dbm"] is NSNull)
            #expect(result.stderr.contains("AT+CESQ"))
        case let reboot where reboot.contains("reboot"):
            #expect(result.stderr.contains("rebooted"))
        default:
            #expect(registration["stat"] as? Int == 1)
        }
        _ = simulator.stop()
    }

    @Test func rawCommands() throws {
        let simulator = try Simulator(["bg95"])
        let result = try cli.run("at", simulator.paths[0], "AT+CSQ", "AT+CEREG?", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let results = result.json["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["command"] as? String } == ["AT+CSQ", "AT+CEREG?"])
        #expect((results.first?["lines"] as? [String])?.first?.hasPrefix("+CSQ: ") == true)
        #expect(results.allSatisfy { $0["final"] as? String == "OK" && $0["ok"] as? Bool == true })
        let text = try cli.run("at", simulator.paths[0], "AT+CGMM", "AT+NOPE")
        #expect(text.status == 52)
        #expect(text.stdout == "BG95-M3\nOK\nERROR\n")
        _ = simulator.stop()
    }

    @Test("- reads a command line from stdin; a secret on the command line draws a warning; no secret is printed")
    func commandFromStandardInput() throws {
        let simulator = try Simulator(["bg95"])
        let piped = try cli.run(["at", simulator.paths[0], "AT+CGMI", "-", "--json"], input: "\n  AT+CGMM  \n")
        #expect(piped.status == 0, "\(piped.stderr)")
        let results = piped.json["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["command"] as? String } == ["AT+CGMI", "AT+CGMM"])
        #expect((results.last?["lines"] as? [String]) == ["BG95-M3"])
        let pin = try cli.run(["at", simulator.paths[0], "-", "--json"], input: "AT+CPIN = \"1234\"\n")
        let pinResults = pin.json["results"] as? [[String: Any]] ?? []
        #expect(pinResults.first?["command"] as? String == "AT+CPIN =***", "\(pin.stdout)")
        #expect(!pin.stderr.contains("warning"))
        let argv = try cli.run("at", simulator.paths[0], "AT+CPIN = \"1234\"")
        #expect(argv.stderr.hasPrefix("warning: AT+CPIN =*** puts a secret on the command line"), "\(argv.stderr)")
        #expect(argv.stderr.contains("give - instead"))
        for output in [pin.stdout, pin.stderr, argv.stdout, argv.stderr] {
            #expect(!output.contains("1234"), "\(output)")
        }
        let short = try cli.run(["at", simulator.paths[0], "-", "-"], input: "AT+CSQ\n")
        #expect(short.status == 64 && short.stderr.contains("stdin ended"), "\(short.stderr)")
        _ = simulator.stop()
    }

    @Test func interactiveConsoleShowsURCsApart() throws {
        let simulator = try Simulator(["bg95"])
        let console = Process()
        console.executableURL = CLI.binary
        console.arguments = ["at", simulator.paths[0]]
        let stdin = Pipe()
        let output = Pipe()
        let errors = Pipe()
        console.standardInput = stdin
        console.standardOutput = output
        console.standardError = errors
        try console.run()
        stdin.fileHandleForWriting.write(Data("AT+CGMI\nAT+CFUN=0\nAT+CEREG=1\nAT+CFUN=1\n".utf8))
        // The registration URCs arrive while the console waits for the next line: read stderr
        // until the last one shows up (the process ends the wait if it dies).
        var stderr = ""
        while !stderr.contains("urc: +CEREG: 1") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            stderr += String(decoding: chunk, as: UTF8.self)
        }
        stdin.fileHandleForWriting.write(Data("exit\n".utf8))
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        stderr += String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        console.waitUntilExit()
        #expect(console.terminationStatus == 0)
        #expect(stdout == "Quectel\nOK\nOK\nOK\nOK\n")
        #expect(stderr.contains("urc: +CEREG: 2"))
        #expect(stderr.contains("urc: +CEREG: 1"))
        _ = simulator.stop()
    }
}
