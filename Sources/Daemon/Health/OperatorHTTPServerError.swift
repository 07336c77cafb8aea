/// Why the operator's HTTP endpoint could not start.
public enum OperatorHTTPServerError: Error, Equatable, CustomStringConvertible {
    /// The host did not resolve (`getaddrinfo`'s message).
    case unresolvable(ListenAddress, reason: String)
    /// No address of the host could be bound and listened on (the last `errno`).
    case cannotListen(ListenAddress, errno: Int32, reason: String)
    /// The process is out of file descriptors or threads for the server's wake pipe.
    case resources(reason: String)

    public var description: String {
        switch self {
        case .unresolvable(let address, let reason):
            "cannot listen on \(address): the host does not resolve (\(reason)); use an IP address or a resolvable name"
        case .cannotListen(let address, let code, let reason):
            "cannot listen on \(address): \(reason) (errno \(code))"
                + (code == 98 ? "; another process has this port, choose another one" : "")
        case .resources(let reason):
            "cannot start the HTTP server: \(reason)"
        }
    }
}
