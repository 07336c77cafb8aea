/// Why a supervisor's attempt ended, and what it does next.
public struct ModemFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the supervisor does after this failure.
    public enum Disposition: String, Sendable, Hashable {
        /// Wait out the backoff and try again from the probe.
        case retry
        /// Stop: the port is not a modem port (state `not_modem`).
        case notModem
        /// Stop: the port is gone (state `absent`); discovery announces it again if it returns.
        case gone
    }

    public var code: ModemFailureCode
    /// What failed, where (port, IMEI, command) and what to do.
    public var message: String
    public var disposition: Disposition

    public init(_ code: ModemFailureCode, _ message: String, disposition: Disposition = .retry) {
        self.code = code
        self.message = message
        self.disposition = disposition
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Whether the module stopped answering (commands time out, or the port that answered before is
    /// silent): what a reset may cure, and what `[modem] max_resets` counts.
    var meansSilentModule: Bool {
        code == .unresponsive
    }
}
