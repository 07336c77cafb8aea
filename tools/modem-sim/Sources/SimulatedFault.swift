/// A misbehaviour a simulated port can be told to show, from its configuration or on demand
/// (``ModemSimulator/inject(_:port:)``, or a `PORT FAULT` line on the simulator's stdin).
public enum SimulatedFault: Sendable, Hashable, CustomStringConvertible {
    /// Bursts of line noise (bytes ≥ 0x80 and NULs, then CR LF) before every answer and every
    /// 200 ms (scaled) while idle, as a UART sees around resets and on a bad ground.
    case garbage
    /// A URC slipped into every answer: between the echo and the first line, and before the final
    /// result.
    case urcInResponse
    /// Commands starting with this prefix (upper case, e.g. `AT+CESQ`) are echoed but never
    /// answered; the module stays usable.
    case noAnswer(String)
    /// The module resets instead of answering the `n`th command from now (0: at once), prints its
    /// boot banner after its boot time, and comes back with echo on and default settings.
    case reboot(afterCommands: Int)
    /// The port hangs up at the `n`th command from now (0: at once): the pty master closes, the
    /// host reads EOF/EIO, as on a USB unplug.
    case hangUp(afterCommands: Int)
    /// Every command except a bare `AT` answers `ERROR`: a module that speaks AT but is in no state
    /// to work (or a port with a crippled command set).
    case errors

    /// Parses `garbage`, `urc-in-response`, `no-answer:AT+CESQ`, `reboot[:N]`, `hangup[:N]`, `errors`.
    public init(spec: String) throws(SimulatorConfigurationError) {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        let name = parts.first?.lowercased() ?? ""
        let argument = parts.count > 1 ? parts[1] : nil
        func count() throws(SimulatorConfigurationError) -> Int {
            guard let argument else { return 0 }
            guard let value = Int(argument), value >= 0 else {
                throw SimulatorConfigurationError("fault \(spec): the count must be a non-negative integer")
            }
            return value
        }
        switch name {
        case "garbage": self = .garbage
        case "urc-in-response", "urc": self = .urcInResponse
        case "no-answer", "noanswer", "never-answer":
            guard let argument, !argument.isEmpty else {
                throw SimulatorConfigurationError("fault no-answer needs a command prefix: no-answer:AT+CESQ")
            }
            self = .noAnswer(argument.uppercased())
        case "reboot": self = .reboot(afterCommands: try count())
        case "hangup", "hang-up": self = .hangUp(afterCommands: try count())
        case "errors", "error": self = .errors
        default:
            throw SimulatorConfigurationError(
                "unknown fault \(spec.debugDescription): use garbage, urc-in-response, no-answer:CMD, reboot[:N], hangup[:N] or errors"
            )
        }
    }

    public var description: String {
        switch self {
        case .garbage: "garbage"
        case .urcInResponse: "urc-in-response"
        case .noAnswer(let prefix): "no-answer:\(prefix)"
        case .reboot(let count): "reboot:\(count)"
        case .hangUp(let count): "hangup:\(count)"
        case .errors: "errors"
        }
    }
}
