import PosixSupport

#if canImport(Glibc)
import Glibc
// glibc's socket names (MSG_NOSIGNAL, …): CLinux includes <sys/socket.h>, and in a whole-module
// (release) build a name from it resolves only in files that import CLinux.
import CLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens the listening socket of ``OperatorHTTPServer``: non-blocking, close-on-exec,
/// `SO_REUSEADDR` (a restarted daemon binds again while old connections sit in TIME_WAIT).
enum OperatorHTTPListener {
    /// Binds the first address of `address.host` that takes it; returns the socket and the bound
    /// address (the kernel's port when `address.port` is 0).
    static func open(
        _ address: ListenAddress,
        backlog: Int32 = 64
    ) throws(OperatorHTTPServerError) -> (
        fd: Int32, bound: ListenAddress
    ) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(address.host, String(address.port), &hints, &list)
        guard status == 0 else {
            throw .unresolvable(address, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = EADDRNOTAVAIL
        var cursor = list
        while let info = cursor {
            cursor = info.pointee.ai_next
            let type = info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let fd = socket(info.pointee.ai_family, type, info.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            if bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, backlog) == 0 {
                return (fd, ListenAddress(host: address.host, port: boundPort(fd) ?? address.port))
            }
            lastError = errno
            close(fd)
        }
        throw .cannotListen(address, errno: lastError, reason: Errno.message(lastError))
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer -> Int? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            default:
                nil
            }
        }
    }
}
