import ArgumentParser
import Discovery
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `at`: opens serial ports the way a host does (raw mode, a speed), sends one AT command and prints
/// `{"event":"at","devnode":...,"lines":[...],"final":"OK","milliseconds":...}` per port. With
/// `--candidates` the ports are the ones the candidate policy (``PolicyOptions``) would probe, found by the
/// Discovery library.
/// With `--hold` it then keeps the ports open, reading, until each hangs up (an unplug), and prints
/// `{"event":"hangup","devnode":...,"errno":5}` for each.
struct SendATCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "at",
        abstract: "Send one AT command to ports (or to every probe candidate) and print the answer."
    )

    @Argument(help: "Device nodes, e.g. /dev/ttyUSB2.")
    var devnodes: [String] = []

    @Flag(help: "Talk to every port the candidate policy would probe.")
    var candidates = false

    @OptionGroup var selection: PolicyOptions

    @Option(help: "The command line, without the CR.")
    var command = "AT"

    @Option(help: "Line speed.")
    var baud = 115_200

    /// Modules answer `AT` within milliseconds (the simulator's scripted latencies are below 50 ms);
    /// three seconds leaves room for a loaded machine without making a dead port slow to report.
    @Option(help: "Seconds to wait for a final result code.")
    var timeout = 3.0

    @Flag(help: "Keep the ports open after the exchange until they hang up; print a hangup line for each.")
    var hold = false

    nonisolated(unsafe) private static var terminationSource: (any DispatchSourceSignal)?

    func validate() throws {
        guard candidates || !devnodes.isEmpty else { throw ValidationError("name ports or pass --candidates") }
        guard SerialExchange.speed(for: baud) != nil else {
            throw ValidationError("--baud \(baud) is not a known speed")
        }
    }

    func run() throws {
        var targets = devnodes
        if candidates {
            let discovery = try UdevDiscovery()
            let policy = try selection.policy()
            targets += try discovery.enumerate().filter { policy.decide($0).isProbe }.map(\.devnode)
        }
        var failures = 0
        var held: [(devnode: String, fd: Int32)] = []
        for devnode in targets {
            let exchange = SerialExchange(devnode: devnode, baud: baud, timeout: .milliseconds(Int(timeout * 1000)))
            let (result, fd) = exchange.send(command, keepOpen: hold)
            if result.final != "OK" { failures += 1 }
            if let fd { held.append((devnode, fd)) }
            JSONOutput.emit([
                "event": "at",
                "devnode": devnode,
                "command": command,
                "lines": result.lines,
                "final": result.final,
                "milliseconds": result.milliseconds,
                "error": result.error,
            ])
        }
        if hold {
            // Held ports are released by the kernel at exit: SIGTERM (the testbed's quit) ends the wait cleanly.
            signal(SIGTERM, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
            let status: Int32 = failures > 0 ? 1 : 0
            source.setEventHandler { Glibc.exit(status) }
            source.resume()
            Self.terminationSource = source
        }
        SerialExchange.waitForHangups(held) { devnode, code in
            JSONOutput.emit(["event": "hangup", "devnode": devnode, "errno": Int(code)])
        }
        if failures > 0 { throw ExitCode(1) }
    }
}
