import ArgumentParser
import Dispatch
import Foundation
import ModemSimulatorKit

/// `nbgw-modem-sim`: pseudo-terminals playing NB-IoT / LTE-M modules until SIGTERM or SIGINT.
struct ModemSimulatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nbgw-modem-sim",
        abstract: "Serve pseudo-terminals that behave like NB-IoT / LTE-M modules (for tests, demos, benchmarks).",
        discussion: """
            Prints one JSON line per port on stdout, {"index":0,"family":"bc95","path":"/dev/pts/7","baud":9600}, \
            then serves until SIGTERM/SIGINT, and prints {"stats":[...]} on the way out.

            PORT is FAMILY[,key=value...]: families \(SimulatedFamily.all.map(\.id).joined(separator: ", ")); \
            keys sim=present|missing|pin|puk|failure|busy, pin=DIGITS, registration=home|roaming|denied[:N]|never, \
            psm=on|off, baud=N, \
            fault=garbage|urc-in-response|no-answer:CMD|reboot[:N]|hangup[:N]|errors (repeatable).

            While running, a line "INDEX FAULT" on stdin injects a fault into a port (e.g. "0 hangup", "2 reboot"), \
            and "INDEX EVENT" plays an event (insert-sim, insert-sim-quietly, remove-sim, register, deny[:N], \
            lose-network, radio-off).
            """
    )

    @Option(name: .customLong("port"), help: "A port to serve (repeatable). Default: generic.")
    var ports: [String] = []

    @Option(help: "Serve every --port this many times (for benchmarks).")
    var count: Int = 1

    @Flag(help: "Serve one port of every modem family.")
    var all = false

    @Option(name: .customLong("time-scale"), help: "Multiply every scripted delay by this (0.01 = 100× faster).")
    var timeScale: Double = 1

    @Option(help: "Seed of the noise generator.")
    var seed: UInt64 = 1

    func validate() throws {
        guard count >= 1, count <= 4096 else { throw ValidationError("--count must be between 1 and 4096") }
        guard timeScale >= 0, timeScale <= 100 else { throw ValidationError("--time-scale must be between 0 and 100") }
    }

    func run() throws {
        var specs = ports
        if all {
            specs += SimulatedFamily.all.filter { $0.kind == .modem }.map(\.id)
        }
        if specs.isEmpty { specs = ["generic"] }
        specs = Array(repeating: specs, count: count).flatMap { $0 }
        let simulator: ModemSimulator
        do {
            simulator = try ModemSimulator(specs: specs, timeScale: timeScale, seed: seed)
        } catch {
            throw ValidationError(error.description)
        }
        let started: [ModemSimulator.Port]
        do {
            started = try simulator.start()
        } catch {
            FileHandle.standardError.write(Data("nbgw-modem-sim: \(error)\n".utf8))
            throw ExitCode(70)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for port in started {
            let line = (try? encoder.encode(port)) ?? Data()
            FileHandle.standardOutput.write(line + Data("\n".utf8))
        }
        let done = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }
        let control = Thread {
            while let line = readLine() {
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                guard words.count == 2, let index = Int(words[0]), started.indices.contains(index) else {
                    FileHandle.standardError.write(
                        Data(
                            "nbgw-modem-sim: ignoring \(line.debugDescription): use \"INDEX FAULT\" or \"INDEX EVENT\"\n"
                                .utf8
                        )
                    )
                    continue
                }
                if let event = try? SimulatedEvent(spec: words[1]) {
                    simulator.trigger(event, port: index)
                    continue
                }
                do {
                    simulator.inject(try SimulatedFault(spec: words[1]), port: index)
                } catch {
                    FileHandle.standardError.write(Data("nbgw-modem-sim: \(error)\n".utf8))
                }
            }
        }
        control.start()
        done.wait()
        let statistics = simulator.statistics()
        simulator.stop()
        struct Summary: Encodable {
            struct Entry: Encodable {
                var index: Int
                var commands: Int
                var scripted_latency_ms: Double
                var lateness_ms: Double
                var bytes_received: Int
                var bytes_sent: Int
                var reboots: Int
                var pin_entries: Int
                var overlapping_commands: Int
            }
            var stats: [Entry]
        }
        let summary = Summary(
            stats: statistics.map {
                .init(
                    index: $0.index,
                    commands: $0.commands,
                    scripted_latency_ms: $0.scriptedLatencyMilliseconds,
                    lateness_ms: $0.latenessMilliseconds,
                    bytes_received: $0.bytesReceived,
                    bytes_sent: $0.bytesSent,
                    reboots: $0.reboots,
                    pin_entries: $0.pinEntries,
                    overlapping_commands: $0.overlappingCommands
                )
            }
        )
        FileHandle.standardOutput.write(((try? encoder.encode(summary)) ?? Data()) + Data("\n".utf8))
        withExtendedLifetime(sources) {}
    }
}

ModemSimulatorCommand.main()
