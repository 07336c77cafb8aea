#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CLinux)
import CLinux
#endif

/// System calls and small descriptor helpers that the event loops share.
///
/// `read`, `write` and `close` are spelled through this namespace so that types with methods of the
/// same names (a transport's `read()`, a loop's `close(_:)`) reach the system call without
/// qualifying the C library's module at every call.
public enum Posix {
    /// `read(2)`.
    @inlinable
    public static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #else
        Darwin.read(fd, buffer, count)
        #endif
    }

    /// `write(2)`.
    @inlinable
    public static func write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #else
        Darwin.write(fd, buffer, count)
        #endif
    }

    /// `close(2)`.
    @inlinable
    @discardableResult
    public static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(fd)
        #else
        Darwin.close(fd)
        #endif
    }

    /// Sets `O_NONBLOCK` and `FD_CLOEXEC` on `fd` (a descriptor made by a call that cannot set them
    /// itself, such as `accept(2)` where `accept4(2)` is missing: ``acceptConnection(_:)``). Not atomic with the call that made `fd`: a child started in
    /// between would inherit it, which is why the daemon spawns its hooks with every descriptor
    /// above stderr closed (`HookRunner`).
    public static func makeNonBlockingAndCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
    }

    /// A pipe whose ends are both non-blocking and close-on-exec: `pipe2(2)` on Linux, so no child
    /// can inherit an end even for a moment.
    public static func pipe() throws(Errno) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        #if os(Linux)
        guard pipe2(&ends, O_NONBLOCK | O_CLOEXEC) == 0 else { throw Errno.current }
        #else
        guard Darwin.pipe(&ends) == 0 else { throw Errno.current }
        for end in ends { makeNonBlockingAndCloseOnExec(end) }
        #endif
        return (ends[0], ends[1])
    }

    /// Lowers the calling thread's scheduling priority by `steps` nice levels (to at most 19): for
    /// a stage that feeds another thread and must not take the CPU from it when there are fewer
    /// cores than busy threads. On Linux the nice value is a per-thread attribute, and
    /// `getpriority(2)`/`setpriority(2)` with `PRIO_PROCESS` and 0 act on the calling thread only
    /// (setpriority(2), NOTES); raising a nice value needs no privilege. Elsewhere it does nothing.
    /// Returns the thread's nice value afterwards, or nil when it could not be read or set.
    @discardableResult
    public static func lowerCurrentThreadPriority(by steps: Int32) -> Int32? {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let current = getpriority(which, 0)
        guard errno == 0 else { return nil }
        let lowered = min(19, current + max(0, steps))
        guard setpriority(which, 0, lowered) == 0 else { return nil }
        return lowered
        #else
        return nil
        #endif
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: for deadlines on threads that wait in the kernel (a
    /// `poll(2)` timeout), where a Swift `Clock` has nothing to offer a C call.
    public static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
