/// Why a probe did not produce a report. The three ``Kind``s are what an operator must tell apart
/// (and what `nbgw modem probe` maps to exit codes 50, 51, 52).
public enum ModemProbeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad class of failure.
    public enum Kind: String, Sendable, Hashable {
        /// The port opens but nothing answers `AT` at any speed tried.
        case notAModem = "NOT_A_MODEM"
        /// The port cannot be opened, or it went away.
        case deadPort = "DEAD_PORT"
        /// Something answers AT, but the identification commands fail.
        case modemError = "MODEM_ERROR"
    }

    /// No final result to `AT` at any of `baudRates`. `sawBytes` tells "silence" (a diagnostic
    /// port, nothing attached) from "noise" (a wrong speed, a GNSS port streaming NMEA).
    case notAModem(port: String, baudRates: [Int], sawBytes: Bool)
    /// Opening or configuring the port failed.
    case portUnavailable(port: String, reason: ATTransportError)
    /// The port closed in the middle of the probe (unplug, hang-up, the module reset its USB).
    case portClosed(port: String, command: String?, reason: ATTransportError.CloseReason)
    /// The module answers `AT` but `command` failed; `detail` is the modem's answer or the timeout.
    case modemError(port: String, command: String, detail: String)

    public var kind: Kind {
        switch self {
        case .notAModem: .notAModem
        case .portUnavailable, .portClosed: .deadPort
        case .modemError: .modemError
        }
    }

    /// The port concerned.
    public var port: String {
        switch self {
        case .notAModem(let port, _, _), .portUnavailable(let port, _), .portClosed(let port, _, _),
            .modemError(let port, _, _):
            port
        }
    }

    public var description: String {
        switch self {
        case .notAModem(let port, let baudRates, let sawBytes):
            let speeds = baudRates.map(String.init).joined(separator: ", ")
            let heard =
                sawBytes
                ? "bytes arrived but never an OK (a wrong speed, or a GNSS/diagnostic port)"
                : "nothing arrived (a diagnostic port, or no module behind it)"
            return "\(port) is not an AT modem port: no answer to AT at \(speeds) baud; \(heard). "
                + "Try the module's other ports (the AT port is usually USB interface 2), or --baud N if it uses another speed."
        case .portUnavailable(let port, let reason):
            let hint: String =
                switch reason {
                case .portBusy: "stop the other program (systemctl stop ModemManager) or wait for it"
                case .openFailed(_, let code) where code == 2:
                    "check the path (ls -l /dev/ttyUSB* /dev/ttyACM*) and that the module is plugged in"
                case .openFailed(_, let code) where code == 13:
                    "add the user to the dialout group or run with the right permissions"
                default: "check the device and its permissions"
                }
            return "cannot use \(port): \(reason); \(hint)"
        case .portClosed(let port, let command, let reason):
            return "\(port) went away\(command.map { " during \($0)" } ?? "") (\(reason)): "
                + "the module was unplugged or reset its USB interface; check cabling and power, then probe again"
        case .modemError(let port, let command, let detail):
            return "\(port) answers AT but \(command) failed: \(detail). "
                + "Check the module's supply and firmware; `nbgw at \(port) 'AT+CMEE=2' '\(command)'` shows its own words"
        }
    }
}
