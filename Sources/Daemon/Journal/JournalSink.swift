import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
// glibc's socket names (MSG_NOSIGNAL, …): CLinux includes <sys/socket.h>, and in a whole-module
// (release) build a name from it resolves only in files that import CLinux.
import CLinux
#endif

/// Where ``JournalLogHandler`` writes: journald's native socket, else stderr lines with `<N>`
/// priority prefixes. Made only when stderr is journald's stream (``detect(environment:)``).
///
/// Each record is one datagram (`sendto`, unconnected, so a restarted journald is reached again).
/// When the socket cannot take it (no socket, journald not running, a record larger than a
/// datagram may be, journald not reading for ``sendTimeout``), the record is written to stderr as
/// one `<N>` line instead: journald keeps its priority, and nothing is lost.
///
/// Why no memfd for large records (sd_journal_sendv passes those as a sealed memfd): every field
/// is cut (``JournalEntry/messageLimit``, ``JournalEntry/valueLimit``, ``JournalEntry/fieldLimit``),
/// so a record is at most about 150 kB, under the datagram limit of the default socket buffer
/// (`net.core.wmem_default`, 212992 bytes: the largest datagram it takes is 212960 bytes, measured
/// by `JournalLogHandlerTests`); the daemon's records are under 1 kB. A smaller buffer only moves a
/// record to the `<N>` line.
public final class JournalSink: Sendable {
    /// journald's native socket (systemd-journald.service(8)).
    public static let defaultSocketPath = "/run/systemd/journal/socket"
    /// Overrides ``defaultSocketPath``: for tests, and containers whose journald socket is elsewhere.
    public static let socketEnvironmentKey = "NBGW_JOURNAL_SOCKET"
    /// How long one record may wait for journald to read its socket before it goes to stderr.
    /// Why 250 ms: journald drains its socket continuously; a supervisor must not stall longer on a
    /// log line, and stderr (journald's stream) is the lossless way round.
    public static let sendTimeout: Duration = .milliseconds(250)

    public let socketPath: String
    private let descriptor: Int32
    private let standardError: Int32
    private let writeLock = Mutex(())

    /// A sink for `socketPath`, falling back to the descriptor `standardError`.
    public init(socketPath: String, standardError: Int32 = 2) {
        self.socketPath = socketPath
        self.standardError = standardError
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if descriptor >= 0 {
            let (seconds, attoseconds) = Self.sendTimeout.components
            var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// A sink when stderr is journald's stream, else nil (log plain lines to stderr).
    ///
    /// systemd sets `JOURNAL_STREAM=DEVICE:INODE` (decimal) for a unit whose stderr it connects to
    /// journald; the variable is inherited by children whose stderr may be redirected elsewhere, so
    /// it counts only when it names the descriptor 2 has (systemd.exec(5), "JOURNAL_STREAM").
    public static func detect(environment: [String: String], standardError: Int32 = 2) -> JournalSink? {
        guard let stream = environment["JOURNAL_STREAM"], isJournalStream(stream, descriptor: standardError) else {
            return nil
        }
        let path = environment[socketEnvironmentKey].flatMap { $0.isEmpty ? nil : $0 } ?? defaultSocketPath
        return JournalSink(socketPath: path, standardError: standardError)
    }

    /// Whether `value` (`DEVICE:INODE`) is the device and inode of `descriptor`.
    public static func isJournalStream(_ value: String, descriptor: Int32) -> Bool {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Sends `entry` to journald, else writes its `<N>` line to stderr.
    public func write(_ entry: JournalEntry) {
        if send(entry.datagram) { return }
        writeLine(entry.line)
    }

    /// One datagram to the socket; false when it was not taken.
    func send(_ datagram: [UInt8]) -> Bool {
        guard descriptor >= 0 else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + path.count + 1)
        while true {
            let sent = datagram.withUnsafeBytes { bytes in
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                    }
                }
            }
            if sent == datagram.count { return true }
            if sent < 0, errno == EINTR { continue }
            return false
        }
    }

    /// Writes `line` to stderr whole (one record per line; lines from several threads never interleave).
    func writeLine(_ line: [UInt8]) {
        writeLock.withLock { _ in
            var offset = 0
            while offset < line.count {
                let written = line[offset...].withUnsafeBytes { Glibc.write(standardError, $0.baseAddress, $0.count) }
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
