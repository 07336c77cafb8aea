import ATKit
import ArgumentParser
import Foundation
import Synchronization

/// The three ways a probe fails, with their documented codes and exit statuses (docs/cli.md, "Modems").
enum ModemExit {
    static func status(_ kind: ModemProbeError.Kind) -> Int32 {
        switch kind {
        case .notAModem: 50
        case .deadPort: 51
        case .modemError: 52
        }
    }

    /// Prints `error` the documented way and exits with its status.
    static func fail(_ error: ModemProbeError, json: Bool) -> ExitCode {
        fail(code: error.kind.rawValue, message: error.description, status: status(error.kind), json: json)
    }

    static func fail(code: String, message: String, status: Int32, json: Bool) -> ExitCode {
        if json {
            Output.json(Output.ErrorBody(error: .init(code: code, message: message)))
        } else {
            FileHandle.standardError.write(Data("error: \(code): \(message)\n".utf8))
        }
        return ExitCode(status)
    }
}

/// Options shared by the modem commands.
struct ModemPortOptions: ParsableArguments {
    @Option(help: "Line speed; default: try 115200, 9600, 921600, 230400, 57600.")
    var baud: Int?

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        if let baud, !SerialPortConfiguration.supportedBaudRates.contains(baud) {
            throw ValidationError(
                "--baud \(baud) is not a supported speed; use one of "
                    + SerialPortConfiguration.supportedBaudRates.map(String.init).joined(separator: ", ")
            )
        }
    }

    var probeOptions: ModemProbeOptions {
        baud.map { ModemProbeOptions.fixed(baudRate: $0) } ?? ModemProbeOptions()
    }
}

struct ModemProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Identify the module on TTY: identity, dialect, SIM, registration, signal.",
        discussion: """
            Tries the speeds in turn (or --baud), wakes the module with repeated AT, then reads \
            identity, SIM, registration (+CEREG with PSM timers), signal and operator. Unknown values \
            are null in --json. Exit 50: not a modem (no AT answer); 51: dead port (cannot open, or it \
            went away); 52: the module answers AT but errors. Details: docs/cli.md, "Modems".
            """
    )

    @Argument(help: "The serial port, e.g. /dev/ttyUSB2.")
    var tty: String

    @OptionGroup var port: ModemPortOptions

    func run() async throws {
        let report: ModemProbeReport
        do {
            report = try await ModemProbe(options: port.probeOptions).probe(port: tty)
        } catch {
            throw ModemExit.fail(error, json: port.json)
        }
        if port.json {
            Output.json(report)
            for note in report.notes {
                FileHandle.standardError.write(Data("note: \(note)\n".utf8))
            }
        } else {
            ModemProbeText.print(report)
        }
    }
}

/// Hidden: probes many ports at once and reports timing, for `tools/bench-probe.sh`.
struct ModemProbeManyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe-many",
        abstract: "Probe several ports concurrently and report wall and CPU time (benchmark).",
        shouldDisplay: false
    )

    @Argument(help: "Serial ports.")
    var ttys: [String]

    @OptionGroup var port: ModemPortOptions

    struct Summary: Encodable {
        struct Entry: Encodable {
            var port: String
            var ok: Bool
            var dialect: String?
            var imei: String?
            var error: String?
            /// From the start to the end of the answer that carried the IMEI (what ModemManager's
            /// "listed with its IMEI" measures).
            var imeiSeconds: Double?
        }
        var ports: Int
        var ok: Int
        var failed: Int
        var seconds: Double
        var cpuUserSeconds: Double
        var cpuSystemSeconds: Double
        var results: [Entry]
    }

    func run() async throws {
        let clock = ContinuousClock()
        let imeiTimes = IMEITimer(start: Date())
        var options = port.probeOptions
        options.trace = { imeiTimes.observe($0) }
        let before = ProcessTimes.now()
        let start = clock.now
        let results = await ModemProbe(options: options).probe(ports: ttys)
        let elapsed = start.duration(to: clock.now)
        let after = ProcessTimes.now()
        let entries = zip(ttys, results).map { tty, result in
            switch result {
            case .success(let report):
                Summary.Entry(
                    port: tty,
                    ok: true,
                    dialect: report.dialect,
                    imei: report.imei,
                    error: nil,
                    imeiSeconds: report.imei.flatMap { imeiTimes.seconds(until: $0) }
                )
            case .failure(let error):
                Summary.Entry(port: tty, ok: false, dialect: nil, imei: nil, error: "\(error.kind.rawValue): \(error)")
            }
        }
        let summary = Summary(
            ports: ttys.count,
            ok: entries.filter(\.ok).count,
            failed: entries.filter { !$0.ok }.count,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            cpuUserSeconds: after.user - before.user,
            cpuSystemSeconds: after.system - before.system,
            results: entries
        )
        if port.json {
            Output.json(summary)
        } else {
            Output.line(
                String(
                    format: "%d ports: %d ok, %d failed in %.3f s (CPU %.3f s user, %.3f s system)",
                    summary.ports,
                    summary.ok,
                    summary.failed,
                    summary.seconds,
                    summary.cpuUserSeconds,
                    summary.cpuSystemSeconds
                )
            )
        }
    }
}

/// When each IMEI first came over the wire, from the probe's trace (benchmark only).
final class IMEITimer: Sendable {
    private let start: Date
    private let seen = Mutex<[String: Date]>([:])

    init(start: Date) {
        self.start = start
    }

    func observe(_ event: ATTraceEvent) {
        guard event.direction == .received else { return }
        let text = event.escapedText
        // An IMEI is 15 digits in a row; remember when each first arrived.
        var digits = ""
        for character in text + " " {
            if character.isASCII && character.isNumber {
                digits.append(character)
                continue
            }
            if digits.count == 15 {
                let imei = digits
                seen.withLock { seen in if seen[imei] == nil { seen[imei] = event.date } }
            }
            digits = ""
        }
    }

    func seconds(until imei: String) -> Double? {
        seen.withLock { $0[imei].map { $0.timeIntervalSince(start) } }
    }
}

/// CPU time of this process (getrusage).
enum ProcessTimes {
    static func now() -> (user: Double, system: Double) {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }
}

/// The human rendering of a probe report.
enum ModemProbeText {
    static func print(_ report: ModemProbeReport) {
        func show(_ value: (some CustomStringConvertible)?) -> String { value.map { "\($0)" } ?? "unknown" }
        let dialect = ModemDialect.named(report.dialect)?.name ?? report.dialect
        var rows: [(String, String)] = [
            ("port", "\(report.port) at \(report.baud) baud"),
            ("module", "\(show(report.manufacturer)) \(show(report.model)) — \(dialect)"),
            ("firmware", show(report.firmware)),
            ("imei", show(report.imei)),
            ("imsi", show(report.imsi)),
            ("iccid", show(report.iccid)),
            ("sim", show(report.sim)),
            (
                "radio",
                report.functionality.map { "CFUN \($0)\($0 == 1 ? " (on)" : $0 == 0 || $0 == 4 ? " (off)" : "")" }
                    ?? "unknown"
            ),
        ]
        let registration = report.registration
        var place: [String] = []
        if let tac = registration.tac { place.append("TAC \(tac)") }
        if let ci = registration.ci { place.append("cell \(ci)") }
        if let act = registration.act { place.append("AcT \(act)\(registration.technology.map { " (\($0))" } ?? "")") }
        if let cause = registration.rejectCause { place.append("reject cause \(cause)") }
        rows.append(
            (
                "registration",
                "\(show(registration.state)) (stat \(show(registration.stat)))"
                    + (place.isEmpty ? "" : ", " + place.joined(separator: ", "))
            )
        )
        let psm = registration.psm
        rows.append(
            (
                "psm",
                psm.activeTimeSeconds == nil && psm.periodicTAUSeconds == nil
                    ? "not granted (or not reported)"
                    : "active time \(show(psm.activeTimeSeconds)) s, periodic TAU \(show(psm.periodicTAUSeconds)) s"
            )
        )
        let signal = report.signal
        rows.append(
            (
                "signal",
                "RSSI \(signal.rssiDBm.map { "\($0) dBm" } ?? "unknown"), RSRP \(signal.rsrpDBm.map { "\($0) dBm" } ?? "unknown"), "
                    + "RSRQ \(signal.rsrqDB.map { "\($0) dB" } ?? "unknown")"
            )
        )
        rows.append(("operator", show(report.operator)))
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            Output.line(label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + value)
        }
        for note in report.notes {
            Output.line("note: \(note)")
        }
    }
}
