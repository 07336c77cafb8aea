import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A real `AF_UNIX` datagram socket playing systemd's notification socket or journald's native
/// socket: bound at a path in a temporary directory, or at an abstract name (`@…`). Collects every
/// datagram received.
final class DatagramListener: Sendable {
    /// What `NOTIFY_SOCKET` (or `NBGW_JOURNAL_SOCKET`) should say.
    let socketPath: String
    private let descriptor: Int32
    private let received = Mutex<[[UInt8]]>([])

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Set while a reader thread receives continuously (``startReading()``); cleared to stop it.
    private let reading = Mutex(false)
    private let readerStopped = DispatchSemaphore(value: 0)

    /// Binds a socket at `path` (a filesystem path, or `@name` for the abstract namespace).
    init(path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var name = Array(path.utf8)
        let abstract = path.hasPrefix("@")
        if abstract { name[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + name.count + (abstract ? 0 : 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(description: "bind \(path): errno \(code)")
        }
        self.descriptor = descriptor
        self.socketPath = path
    }

    deinit {
        if reading.withLock({ running in
            defer { running = false }; return running
        }) {
            readerStopped.wait()
        }
        close(descriptor)
        if !socketPath.hasPrefix("@") { unlink(socketPath) }
    }

    /// Receives on a thread of its own from now on, as journald does: a sender never finds the
    /// socket's queue full (Linux queues at most `net.unix.max_dgram_qlen`, 10 by default,
    /// unread datagrams per socket).
    func startReading() {
        reading.withLock { $0 = true }
        let stopped = readerStopped
        let thread = Thread { [weak self] in
            // Ends when the listener is released (deinit waits for it) or stops reading.
            while let listener = self, listener.reading.withLock({ $0 }) {
                var entry = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, 20) > 0 { listener.drain() }
            }
            stopped.signal()
        }
        thread.start()
    }

    /// Reads every datagram waiting now (non-blocking) into ``datagrams``.
    func drain() {
        // Larger than any datagram the default socket buffer lets through (212992 bytes).
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            guard count > 0 else { return }
            let datagram = Array(buffer[0..<count])
            received.withLock { $0.append(datagram) }
        }
    }

    /// Every datagram so far, in order, as bytes.
    var datagrams: [[UInt8]] {
        if !reading.withLock({ $0 }) { drain() }
        return received.withLock { $0 }
    }

    /// Every datagram so far, in order, as text.
    var messages: [String] {
        datagrams.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Polls (without blocking a thread) until a datagram satisfies `predicate`, or the deadline.
    func waitFor(
        timeout: Duration,
        _ predicate: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let match = messages.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(description: "no matching notification within \(timeout); received \(messages)")
    }

    /// The assignments of one datagram (`READY=1\nSTATUS=…` → ["READY": "1", "STATUS": "…"]).
    static func assignments(_ message: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in message.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return result
    }
}
