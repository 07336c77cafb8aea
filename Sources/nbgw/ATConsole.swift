import ATKit
import ArgumentParser
import Foundation
import NBGWCore
import Synchronization

/// `nbgw at IMEI|PORT [COMMAND...]`: raw AT for diagnostics, warthog618's `modeminfo` in spirit. On
/// a modem the daemon supervises, the commands go through its control socket onto the modem's own
/// session (``ATConsole+Daemon.swift``); otherwise the port is opened directly.
struct ATConsole: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "at",
        abstract: "Send raw AT commands to a modem (IMEI or port), or open an interactive AT console.",
        discussion: """
            With commands: sends each in turn and prints its information lines and final result \
            (URCs go to stderr as "urc: ..."). Without: an interactive console; type commands, \
            Ctrl-D or "exit" to leave; URCs are printed as they arrive, marked "urc:". Slow commands \
            (AT+COPS=?, AT+CFUN=, AT+CGATT=, reboots) get their long timeouts. \
            On a modem nbgwd supervises, the commands run on the daemon's own session with the module, \
            between its commands (docs/control.md); commands that would break its view of the module \
            (ATZ, AT&F, ATE1, AT+IPR, AT+CFUN=0, reboots…), and lines it cannot read as AT commands, are \
            refused unless --force, and then the daemon probes the module afresh. Without a daemon (or on \
            a released or unsupervised port) the port is opened directly. Exit 0 when every command succeeded, 52 when one failed or timed out, 50/51 as \
            for `nbgw modem probe`, 53–56 for the daemon's codes (docs/cli.md). \
            A command given as - is read from stdin instead (one line for each -): give a PIN that way \
            (echo 'AT+CPIN="1234"' | nbgw at IMEI -, or < a file only you can read), since the command \
            line of a process is visible to every user (ps); a secret given on the command line is sent \
            with a warning. Secrets are masked in what is printed back, logged and audited.
            """
    )

    @Argument(help: "The modem: its IMEI, or its serial port (e.g. /dev/ttyUSB2).")
    var tty: String

    @Argument(
        help: ArgumentHelp(
            "Commands, e.g. 'AT+CSQ' 'AT+CEREG?'; - reads one from stdin (keeps a PIN off the process list). "
                + "None: interactive console."
        )
    )
    var commands: [String] = []

    @OptionGroup var port: ModemPortOptions

    @Option(help: "Seconds to wait for an ordinary command's final result.")
    var timeout: Double = 10

    @Flag(
        help: "On a supervised modem, send commands that break the daemon's view of it (the daemon then re-probes it)."
    )
    var force = false

    func validate() throws {
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    struct Result: Encodable {
        var command: String
        var lines: [String]
        var final: String
        var ok: Bool
    }

    struct BatchReport: Encodable {
        var port: String
        /// The line speed (nil through the daemon: its session's).
        var baud: Int?
        /// `port` (opened directly) or `daemon` (the supervised modem's session).
        var via: String
        var results: [Result]
        var urcs: [String]
    }

    struct Event: Encodable {
        var type: String
        var command: String?
        var lines: [String]?
        var final: String?
        var ok: Bool?
        var line: String?
    }

    func run() async throws {
        let lines = try commandLines()
        let route: Route
        do {
            route = try chooseRoute()
        } catch let error as NBGWError {
            throw ModemExit.fail(
                code: error.code.rawValue,
                message: error.message,
                status: error.code.exitCode,
                json: port.json
            )
        }
        switch route {
        case .daemon(let client, let modem):
            try throughDaemon(client, modem: modem, lines: lines)
            return
        case .direct(let path):
            try await direct(path, lines: lines)
        }
    }

    /// The commands to send, each `-` replaced by the next line of stdin that is not blank; a
    /// command with a secret given on the command line draws a warning (it is in the process list,
    /// for every user to read).
    func commandLines() throws -> [String] {
        var lines: [String] = []
        for command in commands {
            guard command == "-" else {
                if ATCommandRedaction.containsSecret(command) {
                    FileHandle.standardError.write(
                        Data(
                            ("warning: \(ATCommandRedaction.redact(command)) puts a secret on the command line, where "
                                + "every user of this machine can read it (ps); give - instead and the line on stdin\n")
                                .utf8
                        )
                    )
                }
                lines.append(command)
                continue
            }
            var line: String?
            while let read = readLine(strippingNewline: true) {
                let trimmed = read.trimmingCharacters(in: .whitespacesAndNewlines)
                if !trimmed.isEmpty {
                    line = trimmed
                    break
                }
            }
            guard let line else {
                throw ValidationError(
                    "- reads a command line from stdin, and stdin ended before one; give one line for each -"
                )
            }
            lines.append(line)
        }
        return lines
    }

    /// Opens `path` and runs `lines` (none: the console) on it.
    func direct(_ path: String, lines: [String]) async throws {
        let tty = path
        let connection: ModemConnection
        do {
            connection = try await ModemProbe(options: port.probeOptions).connect(port: tty)
        } catch {
            throw ModemExit.fail(error, json: port.json)
        }
        let session = ATSession(
            transport: connection.transport,
            configuration: ATSessionConfiguration(
                defaultTimeout: .milliseconds(Int(timeout * 1000)),
                urcTable: ModemDialect.unionURCTable
            )
        )
        let urcs = URCCollector()
        let json = port.json
        let interactive = lines.isEmpty
        let printer = Task {
            for await urc in session.urcs {
                urcs.append(urc.description)
                if interactive && json {
                    Output.json(Event(type: "urc", line: urc.description))
                } else {
                    FileHandle.standardError.write(Data("urc: \(urc)\n".utf8))
                }
            }
        }
        let failure: (code: String, message: String, status: Int32)?
        var results: [Result] = []
        if interactive {
            failure = await console(session)
        } else {
            (results, failure) = await batch(session, lines: lines)
        }
        await session.close()
        await printer.value
        if json && !interactive {
            Output.json(
                BatchReport(port: tty, baud: connection.baudRate, via: "port", results: results, urcs: urcs.lines)
            )
        }
        if let failure {
            // With --json the object above already carries every result: the failure only adds
            // the exit status and a line on stderr.
            throw ModemExit.fail(code: failure.code, message: failure.message, status: failure.status, json: false)
        }
    }

    /// Runs `lines`; returns their results and the failure to report, if any.
    private func batch(
        _ session: ATSession,
        lines: [String]
    ) async -> ([Result], (code: String, message: String, status: Int32)?) {
        var results: [Result] = []
        var firstFailure: (code: String, message: String, status: Int32)?
        for command in lines {
            let (exchange, fatal) = await ATExchange.run(
                command,
                on: session,
                timeout: .milliseconds(Int(timeout * 1000))
            )
            results.append(
                Result(
                    command: ATCommandRedaction.redact(command),
                    lines: exchange.lines,
                    final: exchange.summary,
                    ok: exchange.succeeded
                )
            )
            if !port.json { printText(exchange) }
            if !exchange.succeeded, firstFailure == nil {
                firstFailure =
                    fatal
                    ? ("DEAD_PORT", "\(tty): \(exchange.summary)", 51)
                    : ("MODEM_ERROR", "\(ATCommandRedaction.redact(command)) on \(tty): \(exchange.summary)", 52)
            }
            if fatal { break }
        }
        return (results, firstFailure)
    }

    /// The interactive console; returns a failure only when the port went away.
    private func console(_ session: ATSession) async -> (code: String, message: String, status: Int32)? {
        if !port.json {
            FileHandle.standardError.write(Data("connected to \(tty); type AT commands, Ctrl-D to leave\n".utf8))
        }
        for await line in StandardInputLines.stream() {
            let command = line.trimmingCharacters(in: .whitespaces)
            if command.isEmpty { continue }
            if ["exit", "quit"].contains(command.lowercased()) { break }
            let (exchange, fatal) = await ATExchange.run(
                command,
                on: session,
                timeout: .milliseconds(Int(timeout * 1000))
            )
            if port.json {
                Output.json(
                    Event(
                        type: "response",
                        command: ATCommandRedaction.redact(command),
                        lines: exchange.lines,
                        final: exchange.summary,
                        ok: exchange.succeeded
                    )
                )
            } else {
                printText(exchange)
            }
            if fatal { return ("DEAD_PORT", "\(tty): \(exchange.summary)", 51) }
        }
        return nil
    }

    private func printText(_ exchange: ATExchange) {
        for line in exchange.lines { Output.line(line) }
        Output.line(exchange.summary)
    }
}

/// URC lines seen so far (appended by the printer task, read at the end).
final class URCCollector: Sendable {
    private let collected = Mutex<[String]>([])

    func append(_ line: String) {
        collected.withLock { $0.append(line) }
    }

    var lines: [String] { collected.withLock { $0 } }
}

/// Lines from stdin as an async stream, read on a dedicated thread (stdin blocks).
enum StandardInputLines {
    static func stream() -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                while let line = readLine() {
                    continuation.yield(line)
                }
                continuation.finish()
            }
            thread.start()
        }
    }
}
