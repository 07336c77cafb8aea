import Foundation
import PosixSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Posix helpers and Errno")
struct PosixTests {
    @Test("Errno names the C library's message and keeps the number")
    func errnoMessage() {
        #expect(Errno(ENOENT).description == "No such file or directory")
        #expect(Errno(EMFILE).code == EMFILE)
        #expect("\(Errno(EAGAIN))" == String(cString: strerror(EAGAIN)))
    }

    @Test("Errno.current reads the errno of the call that just failed")
    func errnoCurrent() {
        #expect(close(-1) == -1)
        #expect(Errno.current == Errno(EBADF))
    }

    @Test("makeNonBlockingAndCloseOnExec sets both flags and keeps the others")
    func descriptorFlags() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { pair.forEach { Posix.close($0) } }
        _ = fcntl(pair[0], F_SETFL, O_APPEND)
        #expect(fcntl(pair[0], F_GETFL) & O_NONBLOCK == 0)
        #expect(fcntl(pair[0], F_GETFD) & FD_CLOEXEC == 0)
        Posix.makeNonBlockingAndCloseOnExec(pair[0])
        #expect(fcntl(pair[0], F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(pair[0], F_GETFL) & O_APPEND != 0)
        #expect(fcntl(pair[0], F_GETFD) & FD_CLOEXEC != 0)
    }

    #if os(Linux)
    @Test("lowerCurrentThreadPriority lowers the calling thread only, by the steps asked, to at most 19")
    func threadPriority() throws {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let mine = getpriority(which, 0)
        let seen = Mutex<(returned: Int32?, read: Int32, capped: Int32?)>((nil, 0, nil))
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let returned = Posix.lowerCurrentThreadPriority(by: 3)
            let read = getpriority(which, 0)
            let capped = Posix.lowerCurrentThreadPriority(by: 40)
            seen.withLock { $0 = (returned, read, capped) }
            done.signal()
        }
        thread.start()
        done.wait()
        let result = seen.withLock { $0 }
        #expect(result.returned == min(19, mine + 3))
        #expect(result.read == min(19, mine + 3))
        #expect(result.capped == 19)
        #expect(getpriority(which, 0) == mine, "the calling thread's neighbours keep their priority")
    }
    #endif

    @Test("read, write and close reach the system calls")
    func readWriteClose() throws {
        let ends = try Posix.pipe()
        var out: [UInt8] = [1, 2, 3]
        #expect(Posix.write(ends.write, &out, 3) == 3)
        var into = [UInt8](repeating: 0, count: 8)
        #expect(Posix.read(ends.read, &into, 8) == 3)
        #expect(into.prefix(3) == [1, 2, 3])
        #expect(Posix.read(ends.read, &into, 8) == -1 && errno == EAGAIN, "non-blocking")
        #expect(Posix.close(ends.write) == 0)
        #expect(Posix.read(ends.read, &into, 8) == 0, "end of file once the write end is closed")
        #expect(Posix.close(ends.read) == 0)
    }

    @Test("The monotonic clock never goes back and counts nanoseconds")
    func monotonic() throws {
        let first = Posix.monotonicNanoseconds()
        usleep(2000)
        let second = Posix.monotonicNanoseconds()
        #expect(second >= first + 2_000_000)
    }
}
