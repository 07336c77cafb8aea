import Foundation
import PosixSupport

#if canImport(CLinux)
import CLinux
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Runs one hook executable to its end, bounded in time.
///
/// The child is made with `posix_spawn` (glibc: `clone(CLONE_VM | CLONE_VFORK)`, so a daemon with
/// a large heap forks nothing) with:
/// - no descriptor of the daemon's (`posix_spawn_file_actions_addclosefrom_np(3)`: the store, the
///   serial ports and the sockets stay ours, whatever their `O_CLOEXEC`); stdin `/dev/null`;
///   stdout and stderr one pipe, of which the first ``outputLimit`` bytes are kept;
/// - exactly the given environment (the caller passes a fixed `PATH`);
/// - every signal at its default action and none blocked (the daemon's runtime ignores `SIGPIPE`
///   and handles `SIGTERM`; an ignored signal would survive `execve` and make the hook deaf to
///   our `SIGTERM`);
/// - a process group of its own, so that a timeout stops the hook's children too;
/// - `/` as its working directory.
///
/// Past `timeout` the group gets `SIGTERM`, and ``killGrace`` later `SIGKILL`. The waiting is done
/// on a thread of its own in `poll()` (an ``FDPoller``) on the output pipe, a pidfd (Linux 5.3;
/// without one, a `waitpid(WNOHANG)` every 50 ms) and a ``WakePipe`` that cancellation wakes, never
/// on the concurrency pool: two cores give the pool two threads, and a hook must not hold one for
/// its whole run.
///
/// Why not Foundation's `Process` or swift-subprocess: neither resets the signal dispositions an
/// ignored `SIGPIPE` leaves, nor puts the child in a process group to stop it with its children;
/// what is needed is these five spawn attributes and a `poll()` loop, not a library.
public enum HookRunner {
    /// Output kept per run (stdout and stderr together). Why 2 KiB: a hook says what went wrong in
    /// a line or two; the log record of a failure carries it whole (``JournalEntry/valueLimit``).
    public static let outputLimit = 2048
    /// How long a hook has between `SIGTERM` and `SIGKILL`.
    public static let killGrace: Duration = .seconds(2)

    /// Runs `path` with `environment` (and nothing else), for at most `timeout` plus ``killGrace``.
    /// Cancelling the calling task stops the hook the same way (`SIGTERM`, then `SIGKILL`).
    public static func run(path: String, environment: [String: String], timeout: Duration) async -> HookResult {
        // Closed once the run is over: a late cancellation then writes nothing.
        let canceller: WakePipe
        do {
            canceller = try WakePipe()
        } catch {
            return HookResult(outcome: .notStarted(errno: error.code))
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HookResult, Never>) in
                let thread = Thread {
                    let result = runBlocking(
                        path: path,
                        environment: environment,
                        timeout: timeout,
                        cancel: canceller.readEnd
                    )
                    canceller.close()
                    continuation.resume(returning: result)
                }
                thread.name = "nbgwd-hook"
                thread.start()
            }
        } onCancel: {
            canceller.wake()
        }
    }

    private enum Phase {
        case running
        /// SIGTERM sent (timeout or cancellation); SIGKILL at the deadline.
        case terminating(HookResult.Outcome)
        /// SIGKILL sent; waiting for the exit.
        case killed(HookResult.Outcome)
    }

    /// The whole run, blocking the calling thread.
    static func runBlocking(
        path: String,
        environment: [String: String],
        timeout: Duration,
        cancel: Int32
    ) -> HookResult {
        let started = ContinuousClock.now
        var output: [Int32] = [-1, -1]
        guard pipe2(&output, O_CLOEXEC) == 0 else { return HookResult(outcome: .notStarted(errno: errno)) }
        var spawned = spawn(path: path, environment: environment, output: output[1])
        // ETXTBSY: the file is open for writing somewhere at this instant (a package manager or an
        // editor replacing the hook, or any process's child that inherited a descriptor to it
        // between fork and exec); it clears in milliseconds.
        for delay in [20, 80, 300] {
            guard case .failure(let error) = spawned, error.code == ETXTBSY else { break }
            usleep(UInt32(delay * 1000))
            spawned = spawn(path: path, environment: environment, output: output[1])
        }
        Glibc.close(output[1])
        let pid: pid_t
        switch spawned {
        case .failure(let error):
            Glibc.close(output[0])
            return HookResult(outcome: .notStarted(errno: error.code), duration: started.duration(to: .now))
        case .success(let child):
            pid = child
        }
        // The child is ours and not yet waited for, so its pid cannot be reused meanwhile.
        let pidDescriptor = pidfd_open(pid, 0)
        var outputDescriptor = output[0]
        var kept: [UInt8] = []
        var dropped = 0
        var buffer = [UInt8](repeating: 0, count: 4096)

        /// Reads what the pipe has; false at its end.
        func readOutput() -> Bool {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(outputDescriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { return true }
            guard count > 0 else { return false }
            let room = max(0, outputLimit - kept.count)
            kept += buffer[0..<min(room, count)]
            dropped += max(0, count - room)
            return true
        }

        var phase = Phase.running
        var deadline = started.advanced(by: timeout)
        var status: Int32?
        var poller = FDPoller()
        let (outputToken, pidToken, cancelToken): (UInt64, UInt64, UInt64) = (0, 1, 2)
        while status == nil {
            poller.removeAll()
            if outputDescriptor >= 0 { poller.watch(outputDescriptor, for: .readable, token: outputToken) }
            if pidDescriptor >= 0 { poller.watch(pidDescriptor, for: .readable, token: pidToken) }
            if case .running = phase { poller.watch(cancel, for: .readable, token: cancelToken) }
            var wait = milliseconds(until: deadline)
            if pidDescriptor < 0 { wait = min(wait, 50) }
            let ready: Int
            do {
                ready = try poller.wait(timeoutMilliseconds: Int32(clamping: wait))
            } catch  where error.code == EINTR {
                ready = 0
            } catch {
                break
            }
            for index in 0..<ready {
                let token = poller.event(at: index).token
                if token == outputToken {
                    if !readOutput() {
                        Glibc.close(outputDescriptor)
                        outputDescriptor = -1
                    }
                } else if token == cancelToken, case .running = phase {
                    kill(-pid, SIGTERM)
                    phase = .terminating(.cancelled)
                    deadline = ContinuousClock.now.advanced(by: killGrace)
                }
            }
            // The pidfd says when the child exited; without one, ask.
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid {
                status = raw
                break
            } else if reaped < 0, errno != EINTR {
                // ECHILD: someone else reaped it (nothing in nbgwd does); report what we know.
                status = -1
                break
            }
            if ContinuousClock.now >= deadline {
                switch phase {
                case .running:
                    kill(-pid, SIGTERM)
                    phase = .terminating(.timedOut)
                    deadline = ContinuousClock.now.advanced(by: killGrace)
                case .terminating(let outcome):
                    kill(-pid, SIGKILL)
                    phase = .killed(outcome)
                    // SIGKILL cannot be caught: the exit follows; wait for it without a deadline.
                    deadline = ContinuousClock.now.advanced(by: .seconds(3600))
                case .killed:
                    deadline = ContinuousClock.now.advanced(by: .seconds(3600))
                }
            }
        }
        // What the hook wrote before it exited is still in the pipe: read it, without waiting for
        // descendants that keep the pipe open (bounded: at most 64 reads).
        if outputDescriptor >= 0 {
            poller.removeAll()
            poller.watch(outputDescriptor, for: .readable, token: outputToken)
            for _ in 0..<64 {
                guard ((try? poller.wait(timeoutMilliseconds: 0)) ?? 0) > 0, readOutput() else { break }
            }
            Glibc.close(outputDescriptor)
        }
        if pidDescriptor >= 0 { Glibc.close(pidDescriptor) }

        let outcome: HookResult.Outcome
        switch phase {
        case .terminating(let stopped), .killed(let stopped):
            outcome = stopped
        case .running:
            outcome = decode(status ?? -1)
        }
        return HookResult(outcome: outcome, output: kept, droppedOutput: dropped, duration: started.duration(to: .now))
    }

    /// `waitpid`'s status as an outcome (WIFEXITED / WTERMSIG, which Swift does not import).
    static func decode(_ status: Int32) -> HookResult.Outcome {
        guard status >= 0 else { return .signalled(0) }
        let signal = status & 0x7F
        if signal == 0 { return .exited((status >> 8) & 0xFF) }
        return .signalled(signal)
    }

    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000) + 1
    }

    /// `posix_spawn` with the attributes above; the child's pid, or the errno.
    static func spawn(path: String, environment: [String: String], output: Int32) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        var setup: Int32 = 0
        setup |= posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        setup |= posix_spawn_file_actions_adddup2(&actions, output, 1)
        setup |= posix_spawn_file_actions_adddup2(&actions, output, 2)
        setup |= posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        setup |= posix_spawn_file_actions_addchdir_np(&actions, "/")

        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP {
            sigaddset(&defaults, signal)
        }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        setup |= posix_spawnattr_setsigdefault(&attributes, &defaults)
        setup |= posix_spawnattr_setsigmask(&attributes, &unblocked)
        setup |= posix_spawnattr_setpgroup(&attributes, 0)
        setup |= posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP)
        )
        guard setup == 0 else { return .failure(SpawnError(code: EINVAL)) }

        let arguments = [strdup(path)]
        let variables = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") }
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = (arguments + [nil]).withUnsafeBufferPointer { argv in
            (variables + [nil]).withUnsafeBufferPointer { envp in
                posix_spawn(&pid, path, &actions, &attributes, argv.baseAddress!, envp.baseAddress!)
            }
        }
        return code == 0 ? .success(pid) : .failure(SpawnError(code: code))
    }

    struct SpawnError: Error {
        var code: Int32
    }
}
