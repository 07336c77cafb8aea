import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The running testbed: every testbed call and every module change happens on `queue` (hence
/// `@unchecked Sendable`: the queue, not a lock, guards the state); the stdin reader, the signal
/// sources and the child's termination handler only post to it.
final class TestbedServer: @unchecked Sendable {
    /// How long the child gets to exit after SIGTERM before SIGKILL: the daemon's own graceful
    /// shutdown is bounded well below this.
    static let childGracePeriod: Duration = .seconds(10)

    private let queue = DispatchQueue(label: "nbgw-udev-testbed")
    private let done = DispatchSemaphore(value: 0)
    private let stockProperties: Bool
    private let timeScale: Double
    private var testbed: Testbed?
    private var modules: [String: FakeModule] = [:]
    private var ordinal = 0
    private var nextUSB = 0
    private var nextACM = 0
    private var child: Process?
    private var finished = false
    private var status: Int32 = 0
    private var signalSources: [any DispatchSourceSignal] = []

    init(stockProperties: Bool, timeScale: Double) {
        self.stockProperties = stockProperties
        self.timeScale = timeScale
    }

    /// Runs until done; returns the exit status (the child's, when there is one).
    func run(initial: [ModuleSpec], command: [String]) throws -> Int32 {
        try queue.sync {
            let testbed = Testbed()
            self.testbed = testbed
            try testbed.add(FakeModuleRecord.hostControllerText)
            for spec in initial {
                let module = try plugIn(spec, into: testbed)
                JSONOutput.emit(module.summary)
            }
            JSONOutput.emit(["event": "ready", "root": testbed.rootDirectory])
            if !command.isEmpty { try startChild(command, root: testbed.rootDirectory) }
        }
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [self] in finish(status: child == nil ? 0 : 128 + signalNumber) }
            source.resume()
            signalSources.append(source)
        }
        let reader = Thread { [self] in
            while let line = readLine() {
                queue.async { self.handle(line) }
            }
            queue.async { if self.child == nil { self.finish(status: 0) } }
        }
        reader.start()
        done.wait()
        return status
    }

    private func handle(_ line: String) {
        guard !finished, let testbed else { return }
        let words = line.split(separator: " ").map(String.init)
        switch words.first?.lowercased() {
        case nil:
            return
        case "add":
            guard let spec = ModuleSpec(words: Array(words.dropFirst())) else {
                return report("cannot read \(line.debugDescription): use add KIND NAME [FAMILY] [KEY=VALUE]…")
            }
            guard modules[spec.name] == nil else { return report("a module named \(spec.name) is plugged in already") }
            do {
                JSONOutput.emit(try plugIn(spec, into: testbed).summary)
            } catch {
                report("add \(spec.name): \(error)")
            }
        case "remove":
            guard words.count == 2, let module = modules.removeValue(forKey: words[1]) else {
                return report("cannot read \(line.debugDescription): use remove NAME of a plugged-in module")
            }
            module.unplug(from: testbed)
            JSONOutput.emit(["event": "removed", "name": module.name, "ports": module.record.ports.map(\.devnode)])
        case "stats":
            guard words.count == 2, let module = modules[words[1]] else {
                return report("cannot read \(line.debugDescription): use stats NAME of a plugged-in module")
            }
            JSONOutput.emit(module.statistics)
        case "quit":
            finish(status: child == nil ? 0 : nil)
        default:
            report(
                "unknown command \(line.debugDescription): use add KIND NAME [FAMILY] [KEY=VALUE]…, remove NAME, "
                    + "stats NAME or quit"
            )
        }
    }

    private func plugIn(_ spec: ModuleSpec, into testbed: Testbed) throws -> FakeModule {
        ordinal += 1
        let firstTTY = spec.kind.usesACM ? nextACM : nextUSB
        let module = try FakeModule(
            name: spec.name,
            kind: spec.kind,
            familyOverride: spec.family,
            properties: spec.properties,
            ordinal: ordinal,
            firstTTY: firstTTY,
            stockProperties: stockProperties,
            timeScale: timeScale,
            testbed: testbed
        )
        // Node numbers are never reused: umockdev keeps a removed node's pty entry for its whole life.
        if spec.kind.usesACM { nextACM += spec.kind.interfaces.count } else { nextUSB += spec.kind.interfaces.count }
        modules[spec.name] = module
        return module
    }

    private func startChild(_ command: [String], root: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.resolve(command[0]))
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["UMOCKDEV_DIR"] = root
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [self] finished in
            let code =
                finished.terminationReason == .uncaughtSignal
                ? 128 + finished.terminationStatus : finished.terminationStatus
            queue.async {
                guard !self.finished else { return }
                JSONOutput.emit(["event": "child-exited", "status": Int(code)])
                self.child = nil
                self.finish(status: code)
            }
        }
        try process.run()
        child = process
        JSONOutput.emit(["event": "child-started", "pid": Int(process.processIdentifier), "command": command])
    }

    /// Stops the child (SIGTERM, then SIGKILL after the grace period), unplugs nothing but hangs up
    /// every pty, deletes the tree, and releases ``run(initial:command:)``. `status` nil: the child's.
    private func finish(status: Int32?) {
        guard !finished else { return }
        if let child, child.isRunning {
            child.terminate()
            let deadline = ContinuousClock.now + Self.childGracePeriod
            while child.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if child.isRunning { kill(child.processIdentifier, SIGKILL) }
            child.waitUntilExit()
            let code =
                child.terminationReason == .uncaughtSignal ? 128 + child.terminationStatus : child.terminationStatus
            JSONOutput.emit(["event": "child-exited", "status": Int(code)])
            self.status = status ?? code
        } else {
            self.status = status ?? self.status
        }
        finished = true
        for module in modules.values { module.hangUp() }
        modules.removeAll()
        testbed?.close()
        testbed = nil
        done.signal()
    }

    private func report(_ message: String) {
        JSONOutput.emit(["event": "error", "message": message])
    }

    /// `command` itself when it has a slash, else the first match on PATH.
    private static func resolve(_ command: String) throws -> String {
        if command.contains("/") { return command }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(command)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw TestbedError("\(command) is not on PATH")
    }
}
