import Foundation
import PosixSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Posix.acceptConnection and LoopClosedSignal: the event loops' shared accept and shutdown")
struct PosixAcceptTests {
    /// A non-blocking Unix stream listener in a fresh directory; the path for clients.
    static func listener() throws -> (fd: Int32, path: String, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nbgw-accept-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("s").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && listen(fd, 8) == 0)
        return (fd, path, directory)
    }

    static func connectClient(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(connected == 0)
        return fd
    }

    @Test("Nothing pending is none; a pending client comes back non-blocking and close-on-exec, once")
    func acceptsOnePendingClient() throws {
        let (listenFD, path, directory) = try Self.listener()
        defer {
            Posix.close(listenFD)
            try? FileManager.default.removeItem(at: directory)
        }
        #expect(Posix.acceptConnection(listenFD) == .none)
        let client = try Self.connectClient(path)
        defer { Posix.close(client) }
        guard case .connection(let fd) = Posix.acceptConnection(listenFD) else {
            Issue.record("the pending client was not accepted")
            return
        }
        defer { Posix.close(fd) }
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        // The accepted end is the client's peer: a byte written by the client reads back.
        var byte: UInt8 = 0x2A
        #expect(Posix.write(client, &byte, 1) == 1)
        var received: UInt8 = 0
        #expect(Posix.read(fd, &received, 1) == 1 && received == 0x2A)
        #expect(Posix.acceptConnection(listenFD) == .none)
    }

    @Test("A descriptor that is not a listener is none, not a spin or a crash")
    func notAListener() throws {
        let (listenFD, _, directory) = try Self.listener()
        Posix.close(listenFD)
        try? FileManager.default.removeItem(at: directory)
        #expect(Posix.acceptConnection(listenFD) == .none)
    }

    @Test("Waiters before the signal are resumed by it; a wait after it returns at once")
    func closedSignal() async {
        let signal = LoopClosedSignal()
        #expect(!signal.isClosed)
        async let first: Void = signal.wait()
        async let second: Void = signal.wait()
        // Give the waiters a chance to register; either way both must return after the signal.
        try? await Task.sleep(for: .milliseconds(20))
        signal.signal()
        _ = await (first, second)
        #expect(signal.isClosed)
        await signal.wait()
        signal.signal()
        #expect(signal.isClosed)
    }
}
