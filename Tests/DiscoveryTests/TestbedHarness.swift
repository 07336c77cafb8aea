import Foundation
import Synchronization
import Testing

/// Runs `nbgw-udev-testbed` under `umockdev-wrapper` as a child process: the umockdev preload goes into
/// that child (and its own child) only, never into the `swift test` process, whose environment it would
/// change for every other test.
enum TestbedHarness {
    /// `umockdev-wrapper`, if installed (tools/setup.sh installs the umockdev package).
    static let wrapper: String? = ["/usr/bin/umockdev-wrapper", "/usr/local/bin/umockdev-wrapper"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static var isAvailable: Bool { wrapper != nil }

    static let skipReason: Comment =
        """
        umockdev-wrapper is not installed: apt-get install umockdev libumockdev-dev (tools/setup.sh) \
        to run the udev testbed tests
        """

    /// The built testbed next to the test bundle (`swift build` puts both in the same directory).
    static let binary: String = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let candidates = [
            URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("nbgw-udev-testbed")
                .path,
            FileManager.default.currentDirectoryPath + "/.build/debug/nbgw-udev-testbed",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    /// How long any single expected line may take. Typical: a few milliseconds; the budget covers a
    /// loaded two-core CI machine starting three processes.
    static let lineBudget: Duration = .seconds(20)

    /// `nbgw-udev-testbed serve ARGS -- nbgw-udev-testbed CHILD...`, run to completion (the child exits by itself).
    static func run(serve arguments: [String], child: [String]) async throws -> Session.Finished {
        let session = try Session(serve: arguments, child: child)
        return try await session.finish(within: lineBudget)
    }

    /// Runs the testbed binary directly (no preload), e.g. `describe bg95`.
    static func output(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError(
                "nbgw-udev-testbed \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)"
            )
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// One running testbed: its JSON lines (its own and its child's, which share its stdout) and its stdin.
    final class Session: @unchecked Sendable {
        struct Finished {
            var status: Int32
            var lines: [[String: Any]]
            var stderr: String

            func events(_ name: String) -> [[String: Any]] { lines.filter { $0["event"] as? String == name } }
        }

        /// What the reader threads collect. Separate from the session so that the threads do not keep the
        /// session alive: a session dropped by a failed test must reach `deinit` and stop its process.
        private final class Collected: Sendable {
            struct State {
                var lines: [String] = []
                var consumed: Set<Int> = []
                var errorText = Data()
                var ended = false
            }

            let state = Mutex(State())
        }

        private let process = Process()
        private let input = Pipe()
        private let collected = Collected()

        init(serve arguments: [String], child: [String] = []) throws {
            guard let wrapper = TestbedHarness.wrapper else { throw HarnessError("umockdev-wrapper is not installed") }
            let output = Pipe()
            let errors = Pipe()
            process.executableURL = URL(fileURLWithPath: wrapper)
            process.arguments =
                [TestbedHarness.binary, "serve"] + arguments
                + (child.isEmpty ? [] : ["--", TestbedHarness.binary] + child)
            var environment = ProcessInfo.processInfo.environment
            environment["LD_PRELOAD"] = nil
            environment["UMOCKDEV_DIR"] = nil
            process.environment = environment
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let collected = self.collected
            Thread {
                var pending = Data()
                while true {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        collected.state.withLock { $0.lines.append(line) }
                    }
                }
                collected.state.withLock { $0.ended = true }
            }.start()
            Thread {
                while true {
                    let chunk = errors.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    collected.state.withLock { $0.errorText.append(chunk) }
                }
            }.start()
        }

        /// A test that fails half-way never reaches ``finish(within:)``: SIGTERM makes the testbed stop its
        /// child, delete its tree and exit, so nothing outlives the test.
        deinit {
            if process.isRunning { process.terminate() }
        }

        /// Sends one stdin command.
        func send(_ command: String) {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
        }

        /// The earliest line not returned before whose JSON satisfies `predicate`. Lines are matched in print
        /// order but regardless of what was returned before: the testbed and its child print concurrently
        /// (a hot-plugged port's discovery event may come before the testbed's own line about the module).
        func next(
            _ description: String,
            within budget: Duration = TestbedHarness.lineBudget,
            where predicate: ([String: Any]) -> Bool
        ) async throws -> [String: Any] {
            let deadline = ContinuousClock.now + budget
            while true {
                let (lines, taken, isEnded) = collected.state.withLock { collected in
                    (collected.lines, collected.consumed, collected.ended)
                }
                for index in lines.indices where !taken.contains(index) {
                    if let object = Self.parse(lines[index]), predicate(object) {
                        _ = collected.state.withLock { $0.consumed.insert(index) }
                        return object
                    }
                }
                if isEnded || ContinuousClock.now >= deadline {
                    throw HarnessError(
                        "no line \(description) within \(budget) (ended: \(isEnded)); lines:\n"
                            + "\(lines.joined(separator: "\n"))\nstderr:\n\(stderrText)"
                    )
                }
                // Polling interval: lines arrive within milliseconds; 10 ms keeps the wait cheap.
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        /// The next line whose `event` is `name` (and whose other fields satisfy `predicate`).
        func next(
            event name: String,
            where predicate: @escaping ([String: Any]) -> Bool = { _ in true }
        ) async throws -> [String: Any] {
            try await next("with event \(name)") { $0["event"] as? String == name && predicate($0) }
        }

        var stderrText: String {
            collected.state.withLock { String(decoding: $0.errorText, as: UTF8.self) }
        }

        /// Closes stdin, waits for the testbed to exit and returns everything it printed.
        func finish(within budget: Duration) async throws -> Finished {
            try? input.fileHandleForWriting.close()
            let deadline = ContinuousClock.now + budget
            while process.isRunning || !collected.state.withLock({ $0.ended }) {
                if ContinuousClock.now >= deadline {
                    process.terminate()
                    throw HarnessError("the testbed did not exit within \(budget); stderr:\n\(stderrText)")
                }
                // Polling interval for the exit, as above.
                try await Task.sleep(for: .milliseconds(10))
            }
            let lines = collected.state.withLock { $0.lines }.compactMap(Self.parse)
            return Finished(status: process.terminationStatus, lines: lines, stderr: stderrText)
        }

        /// Every line so far.
        var all: [[String: Any]] { collected.state.withLock { $0.lines }.compactMap(Self.parse) }

        private static func parse(_ line: String) -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
