#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CLinux)
import CLinux
#endif

extension Posix {
    /// What one ``acceptConnection(_:)`` on a non-blocking listener gave.
    public enum Accepted: Equatable, Sendable {
        /// A connection, its descriptor non-blocking and close-on-exec.
        case connection(Int32)
        /// Nothing pending (`EAGAIN`), or the listener failed: stop accepting until it polls readable.
        case none
        /// Out of descriptors or kernel memory (`EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`). The
        /// connection stays in the backlog, so the listener keeps polling readable: a loop that
        /// polled it again at once would spin. Pause accepting for a while (the daemon's loops: 100 ms).
        case outOfResources
    }

    /// Accepts one pending connection on the non-blocking `listenFD`, retrying `EINTR` and a
    /// connection the peer aborted before it was accepted (`ECONNABORTED`).
    ///
    /// On Linux through `accept4(2)` with `SOCK_NONBLOCK | SOCK_CLOEXEC`: the descriptor is never
    /// inheritable, not even between the accept and an `fcntl` (a hook spawned in that moment would
    /// keep the client's connection open). Elsewhere `accept(2)` then
    /// ``makeNonBlockingAndCloseOnExec(_:)``.
    ///
    /// The one accept step of the daemon's operator HTTP server and its control socket.
    public static func acceptConnection(_ listenFD: Int32) -> Accepted {
        while true {
            #if os(Linux)
            let fd = accept4(listenFD, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            #else
            let fd = accept(listenFD, nil, nil)
            if fd >= 0 { makeNonBlockingAndCloseOnExec(fd) }
            #endif
            if fd >= 0 { return .connection(fd) }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfResources
            default: return .none
            }
        }
    }
}
