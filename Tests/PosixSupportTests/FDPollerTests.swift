import PosixSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("FDPoller")
struct FDPollerTests {
    enum Mechanism: String, CaseIterable, CustomTestStringConvertible {
        case poll, epoll
        var testDescription: String { rawValue }

        func make() throws -> FDPoller {
            switch self {
            case .poll: FDPoller()
            case .epoll: try FDPoller(epollCapacity: 4)
            }
        }
    }

    @Test("Reports the ready descriptors with their tokens, and nothing on a timeout", arguments: Mechanism.allCases)
    func readiness(_ mechanism: Mechanism) throws {
        var poller = try mechanism.make()
        let pipes = try (0..<3).map { _ in try WakePipe() }
        defer { pipes.forEach { $0.close() } }
        for (index, pipe) in pipes.enumerated() {
            poller.watch(pipe.readEnd, for: .readable, token: UInt64(10 + index))
        }
        #expect(try poller.wait(timeoutMilliseconds: 0) == 0)
        pipes[2].wake()
        pipes[0].wake()
        let count = try poller.wait(timeoutMilliseconds: 1000)
        let events = (0..<count).map { poller.event(at: $0) }
        #expect(Set(events.map(\.token)) == [10, 12])
        #expect(events.allSatisfy { $0.events.contains(.readable) })
    }

    @Test("poll(2) reports in the order the descriptors were watched")
    func pollOrder() throws {
        var poller = FDPoller()
        let pipes = try (0..<4).map { _ in try WakePipe() }
        defer { pipes.forEach { $0.close() } }
        for (index, pipe) in pipes.enumerated().reversed() {
            poller.watch(pipe.readEnd, for: .readable, token: UInt64(index))
            pipe.wake()
        }
        let count = try poller.wait(timeoutMilliseconds: 1000)
        #expect((0..<count).map { poller.event(at: $0).token } == [3, 2, 1, 0])
    }

    @Test("Level-triggered: what is left unread is reported again", arguments: Mechanism.allCases)
    func levelTriggered(_ mechanism: Mechanism) throws {
        var poller = try mechanism.make()
        let pipe = try WakePipe()
        defer { pipe.close() }
        poller.watch(pipe.readEnd, for: .readable, token: 7)
        pipe.wake()
        #expect(try poller.wait(timeoutMilliseconds: 1000) == 1)
        #expect(try poller.wait(timeoutMilliseconds: 0) == 1)
        pipe.drain()
        #expect(try poller.wait(timeoutMilliseconds: 0) == 0)
    }

    @Test(
        "An unwatched descriptor is not reported; the last wait's events stay readable",
        arguments: Mechanism.allCases
    )
    func unwatch(_ mechanism: Mechanism) throws {
        var poller = try mechanism.make()
        let first = try WakePipe()
        let second = try WakePipe()
        defer {
            first.close()
            second.close()
        }
        poller.watch(first.readEnd, for: .readable, token: 1)
        poller.watch(second.readEnd, for: .readable, token: 2)
        first.wake()
        second.wake()
        let count = try poller.wait(timeoutMilliseconds: 1000)
        #expect(count == 2)
        poller.unwatch(first.readEnd)
        poller.unwatch(second.readEnd)
        #expect(Set((0..<count).map { poller.event(at: $0).token }) == [1, 2])
        poller.watch(second.readEnd, for: .readable, token: 3)
        #expect(try poller.wait(timeoutMilliseconds: 1000) == 1)
        #expect(poller.event(at: 0).token == 3)
    }

    @Test("epoll hands out at most its capacity per wait; the rest come with the next")
    func epollCapacity() throws {
        var poller = try FDPoller(epollCapacity: 2)
        let pipes = try (0..<5).map { _ in try WakePipe() }
        defer { pipes.forEach { $0.close() } }
        for (index, pipe) in pipes.enumerated() {
            poller.watch(pipe.readEnd, for: .readable, token: UInt64(index))
            pipe.wake()
        }
        var seen: Set<UInt64> = []
        for _ in 0..<3 {
            let count = try poller.wait(timeoutMilliseconds: 1000)
            #expect(count <= 2)
            for index in 0..<count {
                let token = poller.event(at: index).token
                seen.insert(token)
                pipes[Int(token)].drain()
            }
        }
        #expect(seen == [0, 1, 2, 3, 4])
    }

    @Test("A writable socket, a hang-up and a closed descriptor are reported as such")
    func writableHangUpInvalid() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        var poller = FDPoller()
        poller.watch(pair[0], for: [.readable, .writable], token: 1)
        var count = try poller.wait(timeoutMilliseconds: 1000)
        #expect(count == 1 && poller.event(at: 0).events == .writable)

        Posix.close(pair[1])
        count = try poller.wait(timeoutMilliseconds: 1000)
        #expect(count == 1 && poller.event(at: 0).events.contains(.hangUp))

        Posix.close(pair[0])
        count = try poller.wait(timeoutMilliseconds: 1000)
        #expect(count == 1 && poller.event(at: 0).events == .invalid)
    }

    @Test("epoll refuses a regular file, naming the errno")
    func epollRefusesRegularFile() throws {
        var poller = try FDPoller(epollCapacity: 1)
        let fd = open("/proc/self/status", O_RDONLY)
        defer { Posix.close(fd) }
        #expect(poller.watch(fd, for: .readable, token: 1) == Errno(EPERM))
    }

    @Test("A poll(2) set rebuilt with removeAll() reports only the new round's descriptors")
    func removeAll() throws {
        var poller = FDPoller()
        let first = try WakePipe()
        let second = try WakePipe()
        defer {
            first.close()
            second.close()
        }
        first.wake()
        second.wake()
        poller.watch(first.readEnd, for: .readable, token: 1)
        #expect(try poller.wait(timeoutMilliseconds: 0) == 1)
        poller.removeAll()
        poller.watch(second.readEnd, for: .readable, token: 2)
        #expect(try poller.wait(timeoutMilliseconds: 0) == 1)
        #expect(poller.event(at: 0).token == 2)
    }

    @Test(
        "A wait with a timeout and nothing ready returns 0 once the timeout has passed",
        arguments: Mechanism.allCases
    )
    func timeout(_ mechanism: Mechanism) throws {
        var poller = try mechanism.make()
        let pipe = try WakePipe()
        defer { pipe.close() }
        poller.watch(pipe.readEnd, for: .readable, token: 0)
        let start = Posix.monotonicNanoseconds()
        #expect(try poller.wait(timeoutMilliseconds: 30) == 0)
        #expect(Posix.monotonicNanoseconds() - start >= 29_000_000)
    }
}
