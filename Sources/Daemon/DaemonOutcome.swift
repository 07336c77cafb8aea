/// How a run of the daemon ended, with the exit status `nbgwd` uses (docs/operations.md,
/// "Exit codes").
public enum DaemonOutcome: Sendable, Equatable {
    /// SIGTERM/SIGINT, and every service stopped within the grace period: 0.
    case stopped
    /// Start-up failed before the services ran (the store cannot be opened: 70, or failed
    /// unexpectedly: 71; udev is unusable: 69; an HTTP cloud that cannot be set up: 78).
    case startFailed(message: String, exitCode: Int32)
    /// A service stopped on its own or failed (a listener could not bind, the gateway failed): 69.
    case serviceFailed(service: String, message: String)
    /// Graceful shutdown overran the grace period: these services had not stopped; the daemon
    /// exits anyway: 75.
    case shutdownTimedOut(pending: [String])

    /// `EX_UNAVAILABLE`: a service could not run.
    public static let serviceUnavailableExitCode: Int32 = 69
    /// `EX_TEMPFAIL`: shutdown overran its grace period (systemd may start the daemon again).
    public static let shutdownTimedOutExitCode: Int32 = 75

    /// The process exit status.
    public var exitCode: Int32 {
        switch self {
        case .stopped: 0
        case .startFailed(_, let code): code
        case .serviceFailed: Self.serviceUnavailableExitCode
        case .shutdownTimedOut: Self.shutdownTimedOutExitCode
        }
    }

    /// What to tell the operator, or nil after a clean stop.
    public var message: String? {
        switch self {
        case .stopped:
            nil
        case .startFailed(let message, _):
            message
        case .serviceFailed(let service, let message):
            "the \(service) service stopped: \(message)"
        case .shutdownTimedOut(let pending):
            "graceful shutdown overran the grace period; still running: \(pending.joined(separator: ", ")) "
                + "(raise [shutdown] grace_period, or look in the log for what these services were waiting on)"
        }
    }
}
