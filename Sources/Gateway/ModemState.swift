/// Where a supervisor is with its port; stored as text in the modem table (`state`) and counted
/// by ``Gateway/snapshot()`` and the `nbgw_modems{state=…}` gauge. Transitions: `docs/gateway.md`.
public enum ModemState: String, Sendable, Codable, CaseIterable {
    /// Finding the speed and identifying the module (``ATKit/ModemProbe``).
    case probing
    /// Applying the bring-up plan (APN, RATs, bands, PSM/eDRX, `+CEREG` reports, radio on).
    case configuring
    /// Waiting for network registration (`+CEREG` home or roaming); also a ready module that lost
    /// its registration and waits to get it back.
    case searching
    /// Registering the module with the cloud (``Provisioning/DeviceRegistrar``).
    case registering
    /// Registered with the network and the cloud; URCs watched, signal polled.
    case ready
    /// The last attempt failed; the supervisor retries after a backoff (the row's `retry_at`).
    case failed
    /// The port went away, or nothing supervises it (the daemon stopped or has not started it).
    case absent
    /// The port does not answer AT at any speed (a diagnostic or GNSS interface), or it is an
    /// interface of a module whose AT port is another one. Not retried.
    case notModem = "not_modem"

    /// Whether a supervisor is working on the port (not absent, not given up on).
    public var isActive: Bool {
        switch self {
        case .absent, .notModem: false
        default: true
        }
    }
}
