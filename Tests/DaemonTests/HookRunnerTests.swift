import Foundation
import Testing

@testable import Daemon

#if canImport(Glibc)
import Glibc
#endif

/// ``HookRunner`` spawning real executables (shell scripts, coreutils): environment, descriptors,
/// signals, output bound, timeout escalation, cancellation.
@Suite("hook runner", .timeLimit(.minutes(2)))
struct HookRunnerTests {
    /// Writes an executable script into `directory`.
    static func script(_ directory: TemporaryDirectory, _ name: String, _ body: String) throws -> String {
        let path = directory.path(name)
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// Whether a process with this pid exists and runs `marker` (not a reused pid).
    static func alive(_ pid: Int32, running marker: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return String(decoding: data, as: UTF8.self).contains(marker)
    }

    @Test("the hook gets exactly the environment given, no descriptor of ours, default signals, / as directory")
    func cleanChild() async throws {
        let directory = try TemporaryDirectory()
        // A descriptor of ours without O_CLOEXEC: the child must not get it anyway.
        let leaked = open(directory.path("store.sqlite"), O_CREAT | O_RDWR, 0o600)
        defer { close(leaked) }
        // An ignored signal survives execve unless reset: the child must see none ignored.
        let previous = signal(SIGHUP, SIG_IGN)
        defer { signal(SIGHUP, previous) }
        let hook = try Self.script(
            directory,
            "inspect",
            """
            env | sort
            echo "cwd=$(pwd)"
            for fd in /proc/$$/fd/*; do echo "fd=$(readlink "$fd")"; done
            read line; echo "stdin=[$line]"
            # A program the shell execs (the shell itself blocks signals around its forks).
            exec /bin/grep -E '^(SigIgn|SigBlk):' /proc/self/status
            """
        )
        let result = await HookRunner.run(
            path: hook,
            environment: ["PATH": "/usr/bin:/bin", "NBGW_STATE": "ready"],
            timeout: .seconds(10)
        )
        #expect(result.outcome == .exited(0), "\(result.outputText)")
        let lines = result.outputText.split(separator: "\n").map(String.init)
        let variables = lines.filter { $0.contains("=") && !$0.hasPrefix("fd=") && !$0.hasPrefix("cwd=") }
            .filter { !$0.hasPrefix("stdin=") }
        // sh adds PWD itself; nothing else of ours reaches the child.
        #expect(Set(variables).subtracting(["PWD=/"]) == ["NBGW_STATE=ready", "PATH=/usr/bin:/bin"], "\(lines)")
        #expect(lines.contains("cwd=/"))
        #expect(lines.contains("SigBlk:\t0000000000000000"), "\(lines)")
        // No signal ignored, but glibc's own two (32 and 33: posix_spawn ignores them in the child
        // on purpose, and any program that uses them installs its handlers).
        let ignored = lines.first { $0.hasPrefix("SigIgn:\t") }.flatMap { UInt64($0.dropFirst(8), radix: 16) }
        #expect(ignored.map { $0 & ~UInt64(0x1_8000_0000) } == 0, "\(lines)")
        let descriptors = lines.filter { $0.hasPrefix("fd=") }
        #expect(!descriptors.contains { $0.contains("store.sqlite") }, "\(descriptors)")
        #expect(!descriptors.contains { $0.contains("socket:") }, "\(descriptors)")
        #expect(descriptors.contains("fd=/dev/null"))
        #expect(lines.contains("stdin=[]"))
    }

    @Test("exit status and output are reported; output past the limit is counted, not kept")
    func statusAndOutput() async throws {
        let directory = try TemporaryDirectory()
        let failing = try Self.script(directory, "fail", "echo 'to stdout'; echo 'to stderr' >&2; exit 3")
        let result = await HookRunner.run(path: failing, environment: [:], timeout: .seconds(10))
        #expect(result.outcome == .exited(3))
        #expect(result.outputText == "to stdout\nto stderr")
        #expect(result.resultLabel == "failed")

        let chatty = try Self.script(directory, "chatty", "/usr/bin/head -c 100000 /dev/zero | /usr/bin/tr '\\0' x")
        let long = await HookRunner.run(path: chatty, environment: [:], timeout: .seconds(10))
        #expect(long.outcome == .exited(0))
        #expect(long.output == [UInt8](repeating: UInt8(ascii: "x"), count: HookRunner.outputLimit))
        #expect(long.droppedOutput == 100_000 - HookRunner.outputLimit)

        let crashing = try Self.script(directory, "crash", "kill -SEGV $$")
        #expect(
            await HookRunner.run(path: crashing, environment: [:], timeout: .seconds(10)).outcome == .signalled(SIGSEGV)
        )

        let noShebang = directory.path("no-shebang")
        try "echo hi\n".write(toFile: noShebang, atomically: true, encoding: .utf8)
        chmod(noShebang, 0o755)
        let notStarted = await HookRunner.run(path: noShebang, environment: [:], timeout: .seconds(10))
        #expect(notStarted.outcome == .notStarted(errno: ENOEXEC))
        #expect(notStarted.resultLabel == "error")
    }

    @Test("past the timeout the hook and its children get SIGTERM; one that ignores it gets SIGKILL")
    func timeout() async throws {
        let directory = try TemporaryDirectory()
        let pids = directory.path("pids")
        let sleeper = try Self.script(
            directory,
            "sleeper",
            "trap 'echo TERM >> \(pids).signals; exit 143' TERM; /bin/sleep 987651 & echo $! >> \(pids); "
                + "echo started; wait"
        )
        let started = ContinuousClock.now
        let result = await HookRunner.run(path: sleeper, environment: [:], timeout: .milliseconds(500))
        let took = started.duration(to: .now)
        #expect(result.outcome == .timedOut)
        #expect(result.outputText == "started")
        #expect(took >= .milliseconds(500), "\(took)")
        // Ended by SIGTERM, not the SIGKILL after the grace: the hook saw it (its trap wrote the
        // mark). Why not an upper bound on the time: on a loaded CI machine the test's own task
        // resumed 2.5 s late once, with the hook long gone.
        #expect(try String(contentsOfFile: pids + ".signals", encoding: .utf8) == "TERM\n")
        let child = try #require(Int32(String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n")[0]))
        // The background child was in the hook's process group: stopped too (reaped by init).
        try await Task.sleep(for: .milliseconds(200))
        #expect(!Self.alive(child, running: "987651"), "the hook's child \(child) outlived the timeout")

        let stubborn = try Self.script(directory, "stubborn", "trap '' TERM; /bin/sleep 987652 & wait; wait")
        let begun = ContinuousClock.now
        let killed = await HookRunner.run(path: stubborn, environment: [:], timeout: .milliseconds(300))
        let lasted = begun.duration(to: .now)
        #expect(killed.outcome == .timedOut)
        #expect(lasted >= .milliseconds(300) + HookRunner.killGrace, "SIGKILL came after \(lasted)")
        // It returns (the sleep it waits for lasts 11 days); the margin is for a loaded machine.
        #expect(lasted < .milliseconds(300) + HookRunner.killGrace + .seconds(30), "\(lasted)")
    }

    @Test("cancelling the task stops the hook at once")
    func cancellation() async throws {
        let directory = try TemporaryDirectory()
        let sleeper = try Self.script(directory, "sleeper", "exec /bin/sleep 987653")
        let started = ContinuousClock.now
        let task = Task { await HookRunner.run(path: sleeper, environment: [:], timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = await task.value
        #expect(result.outcome == .cancelled)
        // At once, not after the 11-day sleep; the margin is for a loaded machine.
        #expect(started.duration(to: .now) < .seconds(30))
    }
}
