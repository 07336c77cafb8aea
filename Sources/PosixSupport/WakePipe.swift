import Synchronization

/// A pipe that wakes a thread waiting in `poll(2)` or `epoll_wait(2)`: closing a descriptor from
/// another thread does not wake it, a byte in this pipe does.
///
/// Both ends are non-blocking and close-on-exec. ``wake()`` may be called from any thread, at any
/// time, also after ``close()``: the write end is used and closed under one lock, so a late wake
/// never writes into a descriptor number the kernel has since handed to someone else (a store, a
/// serial port). ``readEnd`` and ``drain()`` belong to the waiting thread, which calls ``close()``
/// once it waits no more.
public final class WakePipe: Sendable {
    /// The end to wait on: readable once woken, until drained. Valid until ``close()``.
    public let readEnd: Int32
    /// The write end, or -1 once closed.
    private let writeEnd: Mutex<Int32>

    /// A new pipe; throws when the process or the system is out of descriptors.
    public init() throws(Errno) {
        let ends = try Posix.pipe()
        readEnd = ends.read
        writeEnd = Mutex(ends.write)
    }

    /// Makes ``readEnd`` readable. Never blocks: with the pipe full (`EAGAIN`) it is readable
    /// already, which is all a wake-up needs. Does nothing after ``close()``.
    public func wake() {
        writeEnd.withLock { fd in
            guard fd >= 0 else { return }
            var byte: UInt8 = 1
            _ = Posix.write(fd, &byte, 1)
        }
    }

    /// Reads every pending wake-up byte, so the next wait blocks again. On the waiting thread, before
    /// ``close()``.
    public func drain() {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { sink in
            while Posix.read(readEnd, sink.baseAddress, sink.count) > 0 {}
        }
    }

    /// Closes both ends; later ``wake()`` calls do nothing. Idempotent.
    public func close() {
        writeEnd.withLock { fd in
            guard fd >= 0 else { return }
            Posix.close(fd)
            Posix.close(readEnd)
            fd = -1
        }
    }
}
