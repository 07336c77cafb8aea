/// Why a bring-up step failed. Commands that the modem refuses surface as ``ATError`` instead.
public enum ModemBringUpError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The dialect has no way to do `what` (e.g. NB-IoT-only BC95 asked for LTE-M).
    case unsupported(what: String, dialect: String, port: String)
    /// A value cannot be written into a command.
    case invalidArgument(ATCommandArgumentError, port: String)
    /// The network denied registration (`<stat>` 3); `status` carries the reject cause.
    case registrationDenied(RegistrationStatus, port: String)
    /// No registration within the deadline; `last` is the last status seen.
    case registrationTimedOut(last: RegistrationStatus?, after: Duration, port: String)
    /// The module rebooted while we waited.
    case rebooted(marker: String, port: String)
    /// The session closed while we waited.
    case sessionEnded(port: String)
    /// After a reboot command the module did not answer `AT` again within the deadline.
    case rebootTimedOut(after: Duration, port: String)

    public var description: String {
        switch self {
        case .unsupported(let what, let dialect, let port):
            "\(port): \(dialect) cannot \(what); choose settings the module supports (docs/at-engine.md, dialect table)"
        case .invalidArgument(let error, let port):
            "\(port): \(error)"
        case .registrationDenied(let status, let port):
            "\(port): the network denied registration (\(status)); check the SIM's subscription and the APN, "
                + "reject cause \(status.rejectCause.map(String.init) ?? "unknown") is from 3GPP TS 24.301 Annex A"
        case .registrationTimedOut(let last, let after, let port):
            "\(port): not registered after \(after) (last: \(last.map { "\($0)" } ?? "no report")); "
                + "check antenna, coverage and bands, or allow more time (a first NB-IoT attach can take minutes)"
        case .rebooted(let marker, let port):
            "\(port): the module rebooted (\(marker)) while waiting; run the bring-up again"
        case .sessionEnded(let port):
            "\(port): the AT session closed while waiting"
        case .rebootTimedOut(let after, let port):
            "\(port): no answer to AT within \(after) of the reboot command; check the module's power and reset line"
        }
    }
}
