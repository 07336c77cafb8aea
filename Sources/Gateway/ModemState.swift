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
    /// The module works but cannot go on until something outside it changes; the reason says what
    /// (``ModemReasonCode``: no SIM, a failed SIM, the radio kept off, registration denied, no
    /// service). The session stays open: the supervisor follows the module and goes on by itself
    /// when the cause goes away (a SIM inserted, a cell found).
    case waiting
    /// The SIM wants a PIN or PUK (``ModemReasonCode/simPINRequired``, …). A PIN configured for the
    /// SIM is entered once; a wrong one is never tried again.
    case locked
    /// The last attempt failed; the supervisor retries after a backoff (the row's `retry_at`), or,
    /// with reason `NOT_RESPONDING`, gave up until an operator resets or re-probes the module.
    case failed
    /// An operator took the port (`nbgw modem release`): closed and left alone until
    /// `nbgw modem resume` or until the module is unplugged.
    case released
    /// The port went away, or nothing supervises it (the daemon stopped or has not started it).
    case absent
    /// The port does not answer AT at any speed (a diagnostic or GNSS interface), or it is an
    /// interface of a module whose AT port is another one. Not retried.
    case notModem = "not_modem"

    /// Whether a supervisor is working on the port (not absent, not released, not given up on).
    public var isActive: Bool {
        switch self {
        case .absent, .notModem, .released: false
        default: true
        }
    }
}
