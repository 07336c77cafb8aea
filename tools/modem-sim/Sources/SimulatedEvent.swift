/// Something that happens to a simulated module while it runs (a technician, the network), on
/// demand: ``ModemSimulator/trigger(_:port:)``, or a `PORT EVENT` line on the simulator's stdin.
public enum SimulatedEvent: Sendable, Hashable, CustomStringConvertible {
    /// A working SIM is pushed in; with `announce` the module says so (`+CPIN: READY`), otherwise
    /// only `AT+CPIN?` tells.
    case insertSIM(announce: Bool)
    /// The SIM is pulled out (`+CPIN: NOT INSERTED`).
    case removeSIM
    /// The network accepts the module (from now on it registers, home).
    case register
    /// The network rejects the module with an EMM cause.
    case deny(cause: Int)
    /// Coverage is lost: the module searches and does not find a cell.
    case loseNetwork
    /// Something turns the radio off (`AT+CFUN=4` from elsewhere): `+CFUN: 4`.
    case radioOff

    /// Parses `insert-sim`, `insert-sim-quietly`, `remove-sim`, `register`, `deny[:N]`,
    /// `lose-network`, `radio-off`.
    public init(spec: String) throws(SimulatorConfigurationError) {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        switch parts.first?.lowercased() ?? "" {
        case "insert-sim": self = .insertSIM(announce: true)
        case "insert-sim-quietly": self = .insertSIM(announce: false)
        case "remove-sim": self = .removeSIM
        case "register": self = .register
        case "deny":
            guard parts.count == 1 || Int(parts[1]) != nil else {
                throw SimulatorConfigurationError("event \(spec): deny:N needs an EMM cause number")
            }
            self = .deny(cause: parts.count > 1 ? Int(parts[1])! : 15)
        case "lose-network": self = .loseNetwork
        case "radio-off": self = .radioOff
        default:
            throw SimulatorConfigurationError(
                "unknown event \(spec.debugDescription): use insert-sim, insert-sim-quietly, remove-sim, register, "
                    + "deny[:N], lose-network or radio-off"
            )
        }
    }

    public var description: String {
        switch self {
        case .insertSIM(let announce): announce ? "insert-sim" : "insert-sim-quietly"
        case .removeSIM: "remove-sim"
        case .register: "register"
        case .deny(let cause): "deny:\(cause)"
        case .loseNetwork: "lose-network"
        case .radioOff: "radio-off"
        }
    }
}
