import Foundation
import Gateway
import Logging
import Prometheus
import Registry
import Synchronization
import Testing

@testable import Daemon

#if canImport(Glibc)
import Glibc
#endif

/// The hooks' directory rules, queue and service, in process, with real files, real scripts and a
/// real store.
@Suite("state-change hooks", .timeLimit(.minutes(2)))
struct HookServiceTests {
    static func change(_ port: String, _ state: ModemState, imei: String? = nil) -> ModemStateChange {
        ModemStateChange(port: port, imei: imei, state: state)
    }

    static func event(_ port: String, _ state: ModemState) -> HookEvent {
        HookEvent(change: change(port, state), previousState: nil, time: Date(timeIntervalSince1970: 0))
    }

    @Test("the directory runs its executables in byte order; hidden, backup, non-executable files are skipped")
    func directoryOrder() throws {
        let directory = try TemporaryDirectory()
        let hooks = directory.path("hooks.d")
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: false)
        chmod(hooks, 0o755)
        for name in ["20-b", "10-a", "B-upper", ".hidden", "30-c~", "40-d.dpkg-old", "50-readme"] {
            let path = hooks + "/" + name
            try "#!/bin/sh\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, name == "50-readme" ? 0o644 : 0o755)
        }
        try FileManager.default.createDirectory(atPath: hooks + "/60-dir", withIntermediateDirectories: false)
        let entries = try HookDirectory(path: hooks).entries().get()
        let runnable = entries.compactMap { entry -> String? in
            if case .hook(let name, _) = entry { return name }
            return nil
        }
        #expect(runnable == ["10-a", "20-b", "B-upper"])
        let skipped = entries.compactMap { entry -> String? in
            if case .skipped(let name, _) = entry { return name }
            return nil
        }
        #expect(Set(skipped) == [".hidden", "30-c~", "40-d.dpkg-old", "50-readme", "60-dir"])
    }

    @Test("a hook writable by others, or owned by another user, is refused; the others still run")
    func ownership() throws {
        let directory = try TemporaryDirectory()
        let hooks = directory.path("hooks.d")
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: false)
        chmod(hooks, 0o755)
        for (name, mode) in [("10-ok", 0o755), ("20-world", 0o757), ("30-group", 0o775), ("40-other", 0o755)] {
            let path = hooks + "/" + name
            try "#!/bin/sh\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, mode_t(mode))
        }
        // As root the files are chowned to other ids; otherwise the daemon's user is pretended to be
        // someone else, which makes our own files "another user's".
        let root = geteuid() == 0
        if root {
            #expect(chown(hooks + "/30-group", 0, 4242) == 0)
            #expect(chown(hooks + "/40-other", 4243, 0) == 0)
        }
        let user = root ? geteuid() : geteuid() + 1
        let entries = try HookDirectory(path: hooks, user: user).entries().get()
        var refused: [String: String] = [:]
        var runnable: [String] = []
        for entry in entries {
            switch entry {
            case .hook(let name, _): runnable.append(name)
            case .refused(let name, let reason): refused[name] = reason
            case .skipped: break
            }
        }
        #expect(refused["20-world"]?.contains("writable by every user (mode 757)") == true, "\(refused)")
        if root {
            #expect(runnable == ["10-ok"])
            #expect(refused["30-group"]?.contains("writable by group 4242") == true, "\(refused)")
            #expect(refused["40-other"]?.contains("owned by uid 4243") == true, "\(refused)")
        } else {
            #expect(runnable.isEmpty)
            #expect(refused["10-ok"]?.contains("neither root nor the daemon's user") == true)
        }

        // A world-writable directory: nothing in it runs.
        chmod(hooks, 0o777)
        guard case .failure(let problem) = HookDirectory(path: hooks).entries() else {
            Issue.record("a world-writable hooks directory was accepted")
            return
        }
        #expect(problem.description.contains("writable by every user"))
        #expect(
            HookDirectory(path: directory.path("missing")).entries()
                == .failure(
                    HookDirectoryError(
                        "the hooks directory \(directory.path("missing")) cannot be read (No such file or directory): create "
                            + "it (install -d -m 0755 \(directory.path("missing"))) or remove [hooks] directory"
                    )
                )
        )
    }

    @Test("the queue drops its oldest change when full and never hands out one port twice at once")
    func queue() async throws {
        let queue = HookQueue(capacity: 3)
        #expect(queue.push(Self.event("/dev/a", .probing)) == nil)
        #expect(queue.push(Self.event("/dev/a", .configuring)) == nil)
        #expect(queue.push(Self.event("/dev/b", .probing)) == nil)
        let dropped = queue.push(Self.event("/dev/c", .probing))
        #expect(dropped?.change.port == "/dev/a" && dropped?.change.state == .probing)

        // /dev/a's configuring first; /dev/b's next, though /dev/a has more: /dev/a is busy.
        let first = await queue.next()
        #expect(first?.change.port == "/dev/a" && first?.change.state == .configuring)
        #expect(queue.push(Self.event("/dev/a", .searching)) == nil)
        let second = await queue.next()
        #expect(second?.change.port == "/dev/b")
        let third = await queue.next()
        #expect(third?.change.port == "/dev/c")
        // Only /dev/a's searching is left, and /dev/a is busy: the next worker waits.
        let waiter = Task { await queue.next() }
        try await Task.sleep(for: .milliseconds(100))
        #expect(queue.count == 1)
        queue.done(first!)
        let fourth = await waiter.value
        #expect(fourth?.change.port == "/dev/a" && fourth?.change.state == .searching)

        let idle = Task { await queue.next() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(queue.finish().isEmpty)
        #expect(await idle.value == nil)
        #expect(await queue.next() == nil)
    }

    @Test("a slow hook never holds the feed: the oldest waiting changes are dropped, counted and logged")
    func overflow() async throws {
        let directory = try TemporaryDirectory()
        let hooks = directory.path("hooks.d")
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: false)
        chmod(hooks, 0o755)
        let record = directory.path("ran")
        let gate = directory.path("gate")
        let path = hooks + "/10-slow"
        // Records its port, then waits for the gate: the one worker stays busy until the test opens it.
        try "#!/bin/sh\necho \"$NBGW_PORT\" >> \(record)\nwhile [ ! -e \(gate) ]; do /bin/sleep 0.05; done\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        let registry = try Registry(path: directory.path("store.sqlite"))
        let metrics = PrometheusCollectorRegistry()
        let log = LogCapture()
        let (changes, continuation) = AsyncStream.makeStream(of: ModemStateChange.self)
        let service = HookService(
            directory: hooks,
            timeout: .seconds(30),
            changes: changes,
            registry: registry,
            metricsRegistry: metrics,
            logger: log.logger,
            capacity: 2,
            workers: 1
        )
        let running = Task { await service.serve() }
        func ran() -> [String] {
            ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        func wait(_ what: String, _ condition: () -> Bool) async throws {
            let deadline = ContinuousClock.now.advanced(by: .seconds(20))
            while !condition() {
                guard ContinuousClock.now < deadline else { throw DaemonProcess.Failure(description: "no \(what)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        continuation.yield(Self.change("/dev/p1", .probing))
        try await wait("run for /dev/p1") { ran() == ["/dev/p1"] }
        // p1's hook holds the only worker; p2 … p6 arrive at a queue of two.
        for index in 2...6 {
            continuation.yield(Self.change("/dev/p\(index)", .probing))
        }
        try await wait("three drops") { log.count(containing: "hook queue full") == 3 }
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        try await wait("runs for the newest two") { ran().count == 3 }
        continuation.finish()
        await running.value

        #expect(ran() == ["/dev/p1", "/dev/p5", "/dev/p6"])
        let text = PrometheusText(metrics.emitToString())
        #expect(text.value("nbgw_hook_dropped_total") == 3)
        #expect(text.value("nbgw_hook_runs_total", ["result": "ok"]) == 3)
        #expect(text.problems.isEmpty, "\(text.problems)")
        #expect(log.count(containing: "hook queue full") == 3)
    }

    @Test("[hooks] is read, checked and rendered back")
    func configuration() throws {
        let configuration = try DaemonConfiguration.parse(
            toml: "[hooks]\ndirectory = \"/etc/nbgw/hooks.d\"\ntimeout = 3\n",
            file: "hooks.toml"
        )
        #expect(configuration.hooks == .init(directory: "/etc/nbgw/hooks.d", timeout: .seconds(3)))
        #expect(configuration.renderedTOML().contains("[hooks]\ndirectory = \"/etc/nbgw/hooks.d\"\ntimeout = 3\n"))
        #expect(try DaemonConfiguration.parse(toml: "[hooks]\ndirectory = \"\"\n", file: "f").hooks.directory == nil)
        #expect(
            DaemonConfiguration().renderedTOML().contains(
                "[hooks]\n# directory: not set (no hooks run)\ntimeout = 10\n"
            )
        )

        do {
            _ = try DaemonConfiguration.parse(
                toml: "[hooks]\ndirectory = \"hooks.d\"\ntimeout = 0\nparallel = 2\n",
                file: "bad.toml"
            )
            Issue.record("a relative directory, a zero timeout and an unknown key were accepted")
        } catch {
            let byKey = Dictionary(error.problems.map { ($0.key ?? "", $0) }) { first, _ in first }
            #expect(byKey["hooks.directory"]?.message.contains("not an absolute path") == true)
            #expect(byKey["hooks.directory"]?.line == 2)
            #expect(byKey["hooks.timeout"]?.message.contains("out of range") == true)
            #expect(byKey["hooks.parallel"]?.message.contains("unknown key") == true)
        }
    }
}

/// A logger whose records are kept, to count what was logged.
final class LogCapture: Sendable {
    private let messages = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
    }

    func append(_ message: String) {
        messages.withLock { $0.append(message) }
    }

    func count(containing text: String) -> Int {
        messages.withLock { $0.filter { $0.contains(text) }.count }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append(event.message.description)
        }
    }
}
