#if canImport(Glibc)
import Glibc
#endif

/// A pipe that wakes a thread blocked in `poll()`: closing a descriptor from another thread does not.
/// ``signal()`` may be called from any thread; the polling thread calls ``close()`` once it is done.
final class WakePipe: @unchecked Sendable {
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(UdevDiscoveryError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .monitorUnavailable(detail: "pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    func close() {
        _ = Glibc.close(readEnd)
        _ = Glibc.close(writeEnd)
    }
}
