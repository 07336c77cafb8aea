import Foundation
import Testing

@testable import Daemon

#if canImport(Glibc)
import Glibc
#endif

/// What one user can hold of the control socket (security review F11: 64 idle connections from one
/// member of the group starved everyone's `nbgw at`). The loop on a real Unix socket; the test runs
/// as one user, so which users count as privileged is what the test sets.
@Suite("the control socket's connection limits", .timeLimit(.minutes(2)))
struct ControlSocketLimitsTests {
    /// A listening loop and a way to connect to it; `events` collects what the loop reports.
    final class Harness: Sendable {
        let directory: TemporaryDirectory
        let loop: ControlSocketLoop
        let path: String

        init(_ limits: ControlSocketLoop.Limits, privileged: Set<uid_t>) throws {
            directory = try TemporaryDirectory()
            path = directory.path("control.sock")
            loop = try ControlSocketLoop(
                listenFD: try ControlSocketListener.open(path: path, group: nil),
                limits: limits,
                privilegedUsers: privileged
            )
            loop.start()
        }

        /// A connected client socket.
        func connect() throws -> Int32 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                raw.copyBytes(from: Array(path.utf8))
            }
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard status == 0 else { throw POSIXError(.ECONNREFUSED) }
            return fd
        }

        /// What the loop wrote to `fd` before closing it, or nil while it stays open past `timeout`.
        static func readUntilClosed(_ fd: Int32, timeout: Duration) -> String? {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 50) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return String(decoding: received, as: UTF8.self) }
                received += buffer[0..<count]
            }
            return nil
        }

        /// The ids the loop opened, in order, until `count` of them.
        func opened(_ count: Int) async -> [UInt64] {
            var ids: [UInt64] = []
            for await event in loop.events {
                if case .opened(let id, _) = event { ids.append(id) }
                if ids.count == count { break }
            }
            return ids
        }

        func stop() async { await loop.stopAndWait() }
    }

    @Test("one user past their cap is refused with a line that says why; the others keep their place")
    func perUserCap() async throws {
        var limits = ControlSocketLoop.Limits()
        limits.maxConnectionsPerUser = 3
        let harness = try Harness(limits, privileged: [])
        let held = try (0..<3).map { _ in try harness.connect() }
        _ = await harness.opened(3)
        let fourth = try harness.connect()
        let answer = Harness.readUntilClosed(fourth, timeout: .seconds(5))
        #expect(answer?.contains("connections to the control socket open, the most one user may") == true)
        for fd in held { #expect(Harness.readUntilClosed(fd, timeout: .milliseconds(200)) == nil) }
        for fd in held + [fourth] { close(fd) }
        await harness.stop()
    }

    @Test("with every unprivileged place taken, root and the daemon's user still get in")
    func privilegedReserve() async throws {
        var limits = ControlSocketLoop.Limits()
        limits.maxConnections = 2
        limits.maxConnectionsPerUser = 8
        limits.privilegedReserve = 2
        // The test's user plays an operator first, then (a second loop) root.
        let operators = try Harness(limits, privileged: [])
        let taken = try (0..<2).map { _ in try operators.connect() }
        _ = await operators.opened(2)
        let third = try operators.connect()
        #expect(Harness.readUntilClosed(third, timeout: .seconds(5))?.contains("connections open") == true)
        for fd in taken + [third] { close(fd) }
        await operators.stop()

        let root = try Harness(limits, privileged: [geteuid()])
        let all = try (0..<4).map { _ in try root.connect() }
        #expect(await root.opened(4).count == 4)
        for fd in all { #expect(Harness.readUntilClosed(fd, timeout: .milliseconds(200)) == nil) }
        for fd in all { close(fd) }
        await root.stop()
    }

    @Test("a connection with nothing in flight closes at the idle timeout; a busy one stays")
    func idleConnectionsClose() async throws {
        var limits = ControlSocketLoop.Limits()
        // Long enough for the test to mark the busy one before its first idle end, even on a loaded machine.
        limits.idleTimeout = .seconds(3)
        let harness = try Harness(limits, privileged: [])
        let idle = try harness.connect()
        let busy = try harness.connect()
        let ids = await harness.opened(2)
        harness.loop.markBusy(ids[1], true)
        #expect(Harness.readUntilClosed(idle, timeout: .seconds(10)) == "")
        #expect(Harness.readUntilClosed(busy, timeout: .seconds(2)) == nil)
        harness.loop.markBusy(ids[1], false)
        #expect(Harness.readUntilClosed(busy, timeout: .seconds(10)) == "")
        close(idle)
        close(busy)
        await harness.stop()
    }
}
