import ArgumentParser
import Foundation
import NBGWCore
import Provisioning
import Registry
import Scanning

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "A scanning session: bind every scanned label as it arrives (stdin, a HID or a serial scanner).",
        discussion: """
            --input - (default) reads one payload per line from standard input: a keyboard-wedge scanner \
            typing into this terminal, no shell in between. --input /dev/input/by-id/…-event-kbd reads a HID \
            keyboard scanner through evdev, grabbed so its keys reach nobody else (--keymap). --input /dev/ttyACM0 \
            reads a serial scanner at --speed. Each scan prints one line at once (✔ or ✗ CODE, with a bell on \
            failure); the same code again within --repeat-window is ignored; --report FILE gets a CSV row per \
            scan as it happens. Ctrl-C (or the end of the input) prints the tallies. Exit status 0 when no scan \
            failed, 1 otherwise (docs/labels-and-scanning.md).
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var cloudOptions: CloudOptions
    @OptionGroup var who: OperatorOption

    @Option(help: "The owner account to bind to.") var account: String
    @Option(help: "The home (space) to bind into.") var home: String
    @Option(help: "A pairing token, used by the first scan that binds.") var token: String?
    @Option(help: "- (standard input), an event device (/dev/input/…) or a serial tty.") var input: String = "-"
    @Option(
        name: .customLong("input-kind"),
        help: "How to read --input: lines or evdev (default: evdev under /dev/input/, else lines)."
    )
    var inputKind: String?
    @Option(help: "A serial scanner's speed in bit/s.") var speed: Int = 9600
    @Option(help: "An evdev scanner's keyboard layout (\(ScanKeyMap.available.joined(separator: ", "))).")
    var keymap: String = "us"
    @Option(help: "The scanner's suffix after each code: enter (CR/LF) or tab.") var suffix: String = "enter"
    @Option(name: .customLong("repeat-window"), help: "Seconds within which the same code again is ignored.")
    var repeatWindow: Double = 2
    @Option(help: "Append a CSV row per scan to FILE (mode 0600).") var report: String?
    @Option(help: "Activation timeout in seconds, per scan.") var timeout: Double = 120

    /// Why 0.8 s: a scan answers within about a second even when the cloud is slow or unreachable
    /// (the bind is local first; the outbox sends what the wait leaves, `queued`).
    static let defaultCloudWait: Duration = .milliseconds(800)

    func validate() throws {
        guard ["enter", "tab"].contains(suffix) else { throw ValidationError("--suffix must be enter or tab") }
        guard inputKind == nil || ["lines", "evdev"].contains(inputKind!) else {
            throw ValidationError("--input-kind must be lines or evdev")
        }
        guard ScanKeyMap.named(keymap) != nil else {
            throw ValidationError("--keymap: \(keymap) is not one of \(ScanKeyMap.available.joined(separator: ", "))")
        }
        guard repeatWindow >= 0, repeatWindow <= 60 else { throw ValidationError("--repeat-window: 0 to 60 seconds") }
        guard timeout > 0, timeout <= 3600 else {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
    }

    struct ScanLine: Encodable {
        var scan: Int
        var status: String
        var code: String?
        var message: String
        var deviceId: String?
        var imei: String?
        var account: String?
        var home: String?
        var cloudSync: String?
        var tallies: ScanTallies
    }

    /// What the reading loop waits for: a scan, or Ctrl-C / SIGTERM.
    enum Event: Sendable {
        case read(ScanRead)
        case stop(Int32)
        case end
    }

    func run() async throws {
        var failed = false
        try await Output.run(json: store.json) {
            let registry = try store.openRegistry()
            let source = try openInput(registry: registry)
            let writer = try report.map { path throws(NBGWError) in
                do { return try ScanReportWriter(path: path) } catch {
                    throw NBGWError(.invalidArgument, "\(error)")
                }
            }
            // A scan answers within about a second unless the operator asks for a longer wait.
            var wait = Self.defaultCloudWait
            if cloudOptions.cloudWaitSeconds != nil || ProcessInfo.processInfo.environment["NBGW_CLOUD_WAIT"] != nil {
                wait = try cloudOptions.cloudWait()
            }
            failed = try await cloudOptions.withCloud { cloud in
                let session = ScanSession(
                    binding: BindingService(cloud: cloud, registry: registry, cloudWait: wait),
                    account: account,
                    home: home,
                    token: token,
                    operator: who.resolved,
                    repeatWindow: .milliseconds(Int64(repeatWindow * 1000)),
                    timeout: .milliseconds(Int64(timeout * 1000)),
                    report: writer
                )
                return try await serve(session, source: source)
            }
        }
        if failed { throw ExitCode(1) }
    }

    func openInput(registry: Registry) throws -> ScanInput {
        let tab = suffix == "tab"
        if input == "-" || input == "stdin" { return .standardInput(endsWithTab: tab) }
        // A modem's port is never a scanner: nothing scanned goes near one (and opening it would
        // take it from the daemon).
        let real = (try? FileManager.default.destinationOfSymbolicLink(atPath: input)).map {
            $0.hasPrefix("/")
                ? $0 : ((input as NSString).deletingLastPathComponent as NSString).appendingPathComponent($0)
        }
        let resolved = URL(fileURLWithPath: real ?? input).resolvingSymlinksInPath().path
        if let modem = try registry.modems.all().first(where: {
            $0.port == input || URL(fileURLWithPath: $0.port).resolvingSymlinksInPath().path == resolved
        }) {
            throw NBGWError(
                .invalidArgument,
                "\(input.escapedForDisplay()) is the port of modem \(modem.imei ?? "?") that nbgwd manages, not a "
                    + "scanner; give the scanner's own device (docs/labels-and-scanning.md)"
            )
        }
        let kind: ScanInput.Kind? =
            switch inputKind ?? "" {
            case "evdev": .evdev(ScanKeyMap.named(keymap)!)
            case "lines": .lines
            default: input.hasPrefix("/dev/input/") ? .evdev(ScanKeyMap.named(keymap)!) : nil
            }
        do {
            return try ScanInput.open(input, kind: kind, speed: speed, endsWithTab: tab)
        } catch {
            throw NBGWError(.invalidArgument, error.message)
        }
    }

    /// Reads and binds until the input ends or a signal stops it; true when a scan failed.
    func serve(_ session: ScanSession, source: ScanInput) async throws -> Bool {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        var signals: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let handler = DispatchSource.makeSignalSource(signal: number, queue: .global())
            handler.setEventHandler { continuation.yield(.stop(number)) }
            handler.resume()
            signals.append(handler)
        }
        let reads = source.reads()
        let pump = Task {
            for await read in reads { continuation.yield(.read(read)) }
            continuation.yield(.end)
        }
        defer { pump.cancel() }
        if !store.json {
            FileHandle.standardError.write(
                Data("scanning from \(source.name) into \(account)/\(home); Ctrl-C ends the session\n".utf8)
            )
        }
        let bell = isatty(2) == 1
        loop: for await event in events {
            switch event {
            case .read(let read):
                let outcome: ScanOutcome
                do { outcome = try await session.handle(read) } catch {
                    throw NBGWError(
                        .internalError,
                        "\(error.description); the session stops so no scan goes unrecorded"
                    )
                }
                render(outcome, tallies: await session.tallies, bell: bell)
            case .stop, .end:
                break loop
            }
        }
        let tallies = await session.tallies
        if store.json {
            Output.json(["summary": tallies])
        } else {
            Output.line("summary: \(tallies.summary)")
        }
        _ = signals
        return tallies.failed > 0
    }

    func render(_ outcome: ScanOutcome, tallies: ScanTallies, bell: Bool) {
        if store.json {
            Output.json(
                ScanLine(
                    scan: outcome.number,
                    status: outcome.status.rawValue,
                    code: outcome.code,
                    message: outcome.message,
                    deviceId: outcome.deviceID,
                    imei: outcome.imei,
                    account: outcome.account,
                    home: outcome.home,
                    cloudSync: outcome.cloudSync,
                    tallies: tallies
                )
            )
        } else {
            let counts = "[\(tallies.bound) bound, \(tallies.failed) failed]"
            let cloud = outcome.cloudSync.map { ", cloud \($0)" } ?? ""
            switch outcome.status {
            case .bound, .unchanged:
                Output.line(
                    "✔ \(outcome.number) \(outcome.status.rawValue) \(outcome.deviceID ?? "-") (IMEI \(outcome.imei ?? "-")) "
                        + "→ \(outcome.account ?? "-")/\(outcome.home ?? "-")\(cloud)  \(counts)"
                )
            case .repeat:
                Output.line("· \(outcome.number) \(outcome.message)  \(counts)")
            case .failed:
                Output.line("✗ \(outcome.number) \(outcome.code ?? "ERROR"): \(outcome.message)  \(counts)")
            }
        }
        if outcome.isFailure, bell { FileHandle.standardError.write(Data([0x07])) }
    }
}
