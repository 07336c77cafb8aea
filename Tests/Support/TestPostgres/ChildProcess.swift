import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process through `posix_spawn` and `waitpid`, for the tests that run the fleet's
/// programs.
///
/// Why not Foundation's `Process`: under Swift Testing (6.3.1) its exit detection never fired for
/// these children: `waitUntilExit` hung with the child a zombie (seen on the first runs of the
/// fleet tests, on a detached thread too). `waitpid` has no such dependency.
public final class ChildProcess: @unchecked Sendable {
    // Sendable: `pid` is set once; the descriptors are read by one caller; `reaped` under `lock`.
    public let pid: pid_t
    private let lock = NSLock()
    private var reaped = false
    /// The read ends of the child's standard output and standard error.
    public let output: FileHandle
    public let errors: FileHandle

    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        var outputPipe: [Int32] = [0, 0]
        var errorPipe: [Int32] = [0, 0]
        guard pipe2(&outputPipe, O_CLOEXEC) == 0, pipe2(&errorPipe, O_CLOEXEC) == 0 else {
            throw TestPostgresError("pipe2: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0)=\($1)" }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
        close(outputPipe[1])
        close(errorPipe[1])
        guard status == 0 else {
            close(outputPipe[0])
            close(errorPipe[0])
            throw TestPostgresError("cannot run \(path): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        self.output = FileHandle(fileDescriptor: outputPipe[0], closeOnDealloc: true)
        self.errors = FileHandle(fileDescriptor: errorPipe[0], closeOnDealloc: true)
    }

    /// Waits for the child to end (blocks the thread); its exit status, or 128 + the signal.
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        lock.lock()
        reaped = true
        lock.unlock()
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Sends `number` to the child; nothing once it has been waited for (its pid may be another
    /// process's by then).
    public func signal(_ number: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if !reaped { kill(pid, number) }
    }
}
