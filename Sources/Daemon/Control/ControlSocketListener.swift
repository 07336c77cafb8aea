import Foundation
import PosixSupport

#if canImport(Glibc)
import Glibc
// glibc's socket names (MSG_NOSIGNAL, …): CLinux includes <sys/socket.h>, and in a whole-module
// (release) build a name from it resolves only in files that import CLinux.
import CLinux
#endif

/// Opens the control socket: a stale socket file left by a killed daemon is removed, one another
/// daemon still answers on is not (``ControlSocketError/alreadyServed(path:)``); the new one is
/// non-blocking, close-on-exec, mode 0660 and in the operators' group.
enum ControlSocketListener {
    static func open(path: String, group: gid_t?, backlog: Int32 = 16) throws(ControlSocketError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .cannotListen(path: path, reason: "the path is empty or too long for a Unix socket (107 bytes)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw .cannotListen(
                    path: path,
                    reason: "it exists and is not a socket; remove it or choose another path"
                )
            }
            if answers(&address) { throw .alreadyServed(path: path) }
            unlink(path)
        }
        let fd = socket(
            AF_UNIX,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0
        )
        guard fd >= 0 else { throw .resources(Errno.current.description) }
        // Bound with no permissions at all, then opened to owner and group: nobody can connect to a
        // socket with a looser mode, not even for a moment.
        let previous = umask(0o777)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previous)
        guard bound == 0 else {
            let reason = Errno.current.description
            close(fd)
            throw .cannotListen(path: path, reason: reason)
        }
        if let group, chown(path, uid_t.max, group) != 0 {
            let reason = Errno.current.description
            close(fd)
            unlink(path)
            throw .cannotListen(path: path, reason: "cannot give it the operators' group: \(reason)")
        }
        guard chmod(path, group == nil ? 0o600 : 0o660) == 0, listen(fd, backlog) == 0 else {
            let reason = Errno.current.description
            close(fd)
            unlink(path)
            throw .cannotListen(path: path, reason: reason)
        }
        return fd
    }

    /// Whether a daemon accepts connections on `address` now.
    private static func answers(_ address: inout sockaddr_un) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return status == 0
    }
}
