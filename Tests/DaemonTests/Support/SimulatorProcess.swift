import Foundation
import Testing

/// A running `nbgw-modem-sim`: pseudo-terminals playing modules, faults injected through its stdin.
final class SimulatorProcess: @unchecked Sendable {
    struct Port: Decodable, Sendable {
        var index: Int
        var family: String
        var path: String
        var baud: Int
    }

    let process = Process()
    let input = Pipe()
    let outputPath: String
    private(set) var ports: [Port] = []

    /// Starts the simulator; call ``waitForPorts()`` before using ``ports``.
    ///
    /// - Parameter timeScale: scripted delays × this. 0.05: boot banners, registration and
    ///   answers come 20× faster than real modules, so tests finish in seconds.
    /// - Parameter launcher: a command that runs the simulator as its child (`setpriv …`: its ptys
    ///   then belong to that user).
    init(
        _ specs: [String],
        timeScale: Double = 0.05,
        directory: TemporaryDirectory,
        launcher: [String] = []
    ) throws {
        outputPath = directory.path("simulator-\(UUID().uuidString.prefix(6)).out")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let command = launcher + [Binaries.simulator.path] + specs.flatMap { ["--port", $0] } + ["--time-scale", String(timeScale)]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = FileHandle.nullDevice
        process.standardInput = input
        process.environment = Binaries.cleanEnvironment()
        try process.run()
        expected = specs.count
    }

    private let expected: Int

    /// Waits (polling its output file) until the simulator printed every port.
    func waitForPorts(timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            ports = text.split(separator: "\n").compactMap {
                try? JSONDecoder().decode(Port.self, from: Data($0.utf8))
            }
            if ports.count >= expected { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SimulatorFailure(description: "the simulator printed \(ports.count) of \(expected) ports")
    }

    struct SimulatorFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends a control line, e.g. "0 reboot" or "2 hangup".
    func control(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// What one port did, from the simulator's closing `{"stats":[…]}` line.
    struct Statistics: Decodable, Sendable {
        var index: Int
        var commands: Int
        var reboots: Int
        var pinEntries: Int
        var overlappingCommands: Int

        enum CodingKeys: String, CodingKey {
            case index, commands, reboots
            case pinEntries = "pin_entries"
            case overlappingCommands = "overlapping_commands"
        }
    }

    /// Stops the simulator and returns every port's counters.
    func stopAndReadStatistics() async throws -> [Statistics] {
        stop()
        struct Summary: Decodable { var stats: [Statistics] }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("{\"stats\"") {
            return try JSONDecoder().decode(Summary.self, from: Data(line.utf8)).stats.sorted { $0.index < $1.index }
        }
        throw SimulatorFailure(description: "the simulator printed no statistics:\n\(text)")
    }

    /// Stops the simulator (SIGTERM) and waits for it.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit {
        stop()
    }
}
