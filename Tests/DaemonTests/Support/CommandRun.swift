import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A finished command: its exit status and output.
struct CommandRun: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    /// stdout parsed as one JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// Runs `executable arguments…` to its end (stdin empty unless `input`), with the clean
    /// environment plus `environment`; `launcher` runs it as its child (`setpriv --reuid …`). A
    /// command still running after `timeout` is killed (status 137): a hung command fails its test
    /// instead of hanging the run.
    static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String] = [:],
        launcher: [String] = [],
        input: String? = nil,
        timeout: TimeInterval = 120
    ) throws -> CommandRun {
        let process = Process()
        let command = launcher + [executable.path] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = Binaries.cleanEnvironment(environment)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        // Read both pipes to the end concurrently: a full stderr pipe must not stall the child.
        let errorData = Locked(Data())
        let reader = Thread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errorData.update { $0 = data }
        }
        reader.start()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while reader.isExecuting || !reader.isFinished { usleep(1000) }
        return CommandRun(
            status: process.terminationStatus,
            stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errorData.value, as: UTF8.self)
        )
    }

    /// `nbgw arguments…`.
    static func nbgw(
        _ arguments: String...,
        environment: [String: String] = [:],
        launcher: [String] = [],
        input: String? = nil
    ) throws -> CommandRun {
        try run(Binaries.nbgw, arguments, environment: environment, launcher: launcher, input: input)
    }
}

/// A value behind a `Mutex`, for what the test helpers' threads and tasks share (an escaping
/// closure cannot capture a `Mutex` itself).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    var value: Value { mutex.withLock { $0 } }

    /// Changes the value under the lock (read, change and write as one step).
    func update(_ change: (inout Value) -> Void) {
        mutex.withLock { change(&$0) }
    }
}
