import PosixSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("WakePipe")
struct WakePipeTests {
    @Test("A wake makes the read end readable; a drain empties it")
    func wakeAndDrain() throws {
        let pipe = try WakePipe()
        defer { pipe.close() }
        #expect(!Self.isReadable(pipe.readEnd))
        pipe.wake()
        pipe.wake()
        #expect(Self.isReadable(pipe.readEnd))
        pipe.drain()
        #expect(!Self.isReadable(pipe.readEnd))
    }

    @Test("Both ends are non-blocking and close-on-exec")
    func flags() throws {
        let pipe = try WakePipe()
        defer { pipe.close() }
        #expect(fcntl(pipe.readEnd, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(pipe.readEnd, F_GETFD) & FD_CLOEXEC != 0)
        // The write end is private; a full pipe shows it never blocks: 100 000 wakes return.
        for _ in 0..<100_000 { pipe.wake() }
        #expect(Self.isReadable(pipe.readEnd))
    }

    @Test("A wake after close writes nothing, not even into a pipe that reuses its descriptor numbers")
    func wakeAfterClose() throws {
        // The kernel hands out the lowest free numbers, so a new pipe normally gets the closed one's;
        // other tests of this process open descriptors in parallel and may take them first, hence
        // a few tries.
        var attempt: (old: WakePipe, reused: WakePipe)?
        for _ in 0..<100 where attempt == nil {
            let old = try WakePipe()
            old.close()
            let reused = try WakePipe()
            if reused.readEnd == old.readEnd { attempt = (old, reused) } else { reused.close() }
        }
        let (old, reused) = try #require(attempt, "the test needs the descriptor numbers to be reused")
        defer { reused.close() }
        old.wake()
        old.close()  // idempotent: closes nothing of the new pipe's
        #expect(!Self.isReadable(reused.readEnd))
        reused.wake()
        #expect(Self.isReadable(reused.readEnd), "the new pipe's ends are still open")
    }

    @Test("Wakes from many threads while the owner closes never touch another descriptor")
    func concurrentWakeAndClose() async throws {
        for _ in 0..<50 {
            let pipe = try WakePipe()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { for _ in 0..<200 { pipe.wake() } }
                }
                group.addTask { pipe.close() }
            }
            // Every descriptor of the pipe is closed exactly once: a second close would have closed
            // what the test opens next, which must still be open.
            let probe = try WakePipe()
            pipe.close()
            #expect(fcntl(probe.readEnd, F_GETFD) != -1)
            probe.close()
        }
    }

    static func isReadable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
    }
}
