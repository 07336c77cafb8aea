import Synchronization

#if canImport(Glibc)
import Glibc
// glibc's socket names (MSG_NOSIGNAL, …): CLinux includes <sys/socket.h>, and in a whole-module
// (release) build a name from it resolves only in files that import CLinux.
import CLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// systemd's readiness protocol (`sd_notify(3)`), spoken directly: one datagram of
/// newline-separated `KEY=VALUE` assignments to the `AF_UNIX` socket named by `NOTIFY_SOCKET`
/// (a path, or an abstract name written with a leading `@`).
///
/// ```swift
/// if let notifier = SystemdNotifier(environment: ProcessInfo.processInfo.environment) {
///     try notifier.notify(["READY=1", "STATUS=8 modems ready"])
/// }
/// ```
///
/// The datagram socket is opened once, when the notifier is made (at start), and kept: a daemon
/// whose descriptors run out (1,100 idle connections took all 1,024 of them before the listener
/// was capped) must still reach systemd, or the watchdog restarts it.
public struct SystemdNotifier: Sendable, Hashable {
    /// The socket as `NOTIFY_SOCKET` names it (`/run/systemd/notify` or `@name`).
    public let socketPath: String
    /// How often systemd expects `WATCHDOG=1` to be sent: half of `WATCHDOG_USEC`, as sd_watchdog_enabled(3)
    /// recommends; nil when the watchdog is off (or meant for another process, `WATCHDOG_PID`).
    public let watchdogInterval: Duration?
    private let datagrams: Datagrams

    public init(socketPath: String, watchdogInterval: Duration? = nil) {
        self.socketPath = socketPath
        self.watchdogInterval = watchdogInterval
        self.datagrams = Datagrams()
    }

    public static func == (lhs: SystemdNotifier, rhs: SystemdNotifier) -> Bool {
        lhs.socketPath == rhs.socketPath && lhs.watchdogInterval == rhs.watchdogInterval
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(socketPath)
        hasher.combine(watchdogInterval)
    }

    /// The notifier's one datagram socket, opened at once and closed with the last copy of the
    /// notifier; reopened at the next notification if it could not be opened (descriptors ran out).
    final class Datagrams: Sendable {
        private let descriptor: Mutex<Int32>

        init() {
            descriptor = Mutex(Self.open())
        }

        deinit {
            let fd = descriptor.withLock { $0 }
            if fd >= 0 { close(fd) }
        }

        /// The open descriptor, or -1 with `errno` set.
        func use<T>(_ body: (Int32) -> T) -> T {
            descriptor.withLock { fd in
                if fd < 0 { fd = Self.open() }
                return body(fd)
            }
        }

        private static func open() -> Int32 {
            #if canImport(Glibc)
            Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            #else
            Darwin.socket(AF_UNIX, SOCK_DGRAM, 0)
            #endif
        }
    }

    /// The notifier systemd set up for this process, or nil when `NOTIFY_SOCKET` is unset (not
    /// run by systemd, or a unit without `Type=notify`).
    ///
    /// - Parameters:
    ///   - environment: the process environment, passed in by the caller.
    ///   - processID: this process's id, compared with `WATCHDOG_PID`.
    public init?(environment: [String: String], processID: Int32 = getpid()) {
        guard let socket = environment["NOTIFY_SOCKET"], socket.hasPrefix("/") || socket.hasPrefix("@") else {
            return nil
        }
        var watchdog: Duration?
        if let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 {
            let pid = environment["WATCHDOG_PID"].flatMap { Int32($0) }
            if pid == nil || pid == processID {
                watchdog = .microseconds(microseconds / 2)
            }
        }
        self.init(socketPath: socket, watchdogInterval: watchdog)
    }

    /// Sends `assignments` (`READY=1`, `STATUS=…`, `STOPPING=1`, `WATCHDOG=1`) in one datagram.
    ///
    /// - Throws: ``SystemdNotifierError`` when the socket cannot be reached (systemd gone, wrong path).
    public func notify(_ assignments: [String]) throws(SystemdNotifierError) {
        let message = Array(assignments.joined(separator: "\n").utf8)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let abstract = socketPath.hasPrefix("@")
        var name = Array(socketPath.utf8)
        if abstract { name[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count < capacity else {
            throw SystemdNotifierError(socket: socketPath, operation: "address", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: name)
        }
        // A path is NUL-terminated; an abstract name is exactly its bytes (the NUL is part of sun_path).
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + name.count + (abstract ? 0 : 1)
        let sent = datagrams.use { descriptor -> Int in
            guard descriptor >= 0 else { return -1 }
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    message.withUnsafeBytes { bytes in
                        sendto(
                            descriptor,
                            bytes.baseAddress,
                            bytes.count,
                            Int32(MSG_NOSIGNAL),
                            socketAddress,
                            socklen_t(length)
                        )
                    }
                }
            }
        }
        guard sent == message.count else {
            throw SystemdNotifierError(socket: socketPath, operation: "sendto", code: sent < 0 ? errno : EMSGSIZE)
        }
    }

    /// `READY=1` with a status line: start-up is finished.
    public func ready(status: String) throws(SystemdNotifierError) {
        try notify(["READY=1", "STATUS=\(Self.sanitized(status))"])
    }

    /// A status line for `systemctl status`.
    public func status(_ text: String) throws(SystemdNotifierError) {
        try notify(["STATUS=\(Self.sanitized(text))"])
    }

    /// `STOPPING=1`: shutdown has begun.
    public func stopping(status: String) throws(SystemdNotifierError) {
        try notify(["STOPPING=1", "STATUS=\(Self.sanitized(status))"])
    }

    /// `WATCHDOG=1`: the service is alive.
    public func watchdog() throws(SystemdNotifierError) {
        try notify(["WATCHDOG=1"])
    }

    /// One line: a newline would start another assignment.
    static func sanitized(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
