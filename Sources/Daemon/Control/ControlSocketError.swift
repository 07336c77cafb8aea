/// Why the control socket cannot be served.
public enum ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The socket's directory is missing or not writable, or the address is in use.
    case cannotListen(path: String, reason: String)
    /// Another nbgwd answers on the socket already.
    case alreadyServed(path: String)
    /// The process is out of descriptors or memory.
    case resources(String)

    public var description: String {
        switch self {
        case .cannotListen(let path, let reason):
            "cannot listen on the control socket \(path): \(reason); check that its directory exists and is the "
                + "daemon's (nbgw:nbgw 0750, made by the package's tmpfiles.d), or set [control] socket"
        case .alreadyServed(let path):
            "another nbgwd already answers on \(path): stop it first (two daemons would fight over the modems)"
        case .resources(let reason):
            "cannot serve the control socket: \(reason)"
        }
    }
}
