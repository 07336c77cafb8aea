import ATKit

/// Why a module is `waiting`, `locked`, `released` or has given up (`failed` with `NOT_RESPONDING`):
/// the modem table's `reason_code`, the REASON column of `nbgw modems`, `/healthz`, the metrics and
/// `nbgw modems --watch`. A `failed` module's reason is its ``ModemFailureCode``.
///
/// ModemManager says `locked` for a SIM wanting a PIN and `failed` with `sim-missing` or `sim-error`
/// for the rest; these codes say which PIN, whether the configured one was refused, and what the
/// network said (docs/gateway.md, "Compared with ModemManager").
public enum ModemReasonCode: String, Sendable, Hashable, Codable, CaseIterable {
    // SIM (3GPP TS 27.007 §8.3 `+CPIN`, §9.2.1 CME errors 10–15)
    /// No SIM (`+CME ERROR: 10`, `+CPIN: NOT INSERTED`).
    case simAbsent = "SIM_ABSENT"
    /// The SIM wants its PIN and the config has none for it.
    case simPINRequired = "SIM_PIN_REQUIRED"
    /// The SIM refused the PIN the config gives for it; it is not entered again.
    case simPINRejected = "SIM_PIN_REJECTED"
    /// One PIN attempt is left: nbgw does not risk it (a wrong PIN would need the PUK).
    case simPINLastAttempt = "SIM_PIN_LAST_ATTEMPT"
    /// The SIM is blocked behind its PUK (three wrong PINs).
    case simPUKRequired = "SIM_PUK_REQUIRED"
    /// Another lock (`PH-SIM PIN`, `PH-NET PIN`, `SIM PIN2`, …).
    case simLocked = "SIM_LOCKED"
    /// The SIM does not work (`+CME ERROR: 13`/`15`, nRF91 `+CEREG: 90`).
    case simFailure = "SIM_FAILURE"
    /// The SIM is still initialising (`+CME ERROR: 14`, `+CPIN: NOT READY`); checked again shortly.
    case simBusy = "SIM_BUSY"
    // Radio and network
    /// The radio is off (`+CFUN: 0` / `4`): kept off by the config, or the module refused to turn it on.
    case radioOff = "RADIO_OFF"
    /// The network denied registration (`+CEREG` stat 3); the message decodes the EMM cause.
    case registrationDenied = "REGISTRATION_DENIED"
    /// Still searching past `[modem] registration_timeout`; the message has the last signal seen.
    case noService = "NO_SERVICE"
    // Supervision
    /// The module stopped answering and did not come back after `[modem] max_resets` resets.
    case notResponding = "NOT_RESPONDING"
    /// An operator released the port (`nbgw modem release`).
    case released = "RELEASED"

    /// The state this reason goes with.
    public var state: ModemState {
        switch self {
        case .simPINRequired, .simPINRejected, .simPINLastAttempt, .simPUKRequired, .simLocked: .locked
        case .notResponding: .failed
        case .released: .released
        default: .waiting
        }
    }

    /// What to do about it.
    public var advice: String {
        switch self {
        case .simAbsent:
            "Insert a SIM: the gateway notices it by itself (SIM status URCs, and AT+CPIN? every [modem] "
                + "sim_poll_interval); no restart needed."
        case .simPINRequired:
            "Give the SIM's PIN in the config ([[sim]] iccid = … pin = …, in a file only the daemon can read, "
                + "docs/operations.md) and run `systemctl reload nbgwd`: it is entered once."
        case .simPINRejected:
            "The configured PIN is wrong and is not tried again (a third wrong PIN locks the SIM): put the right PIN "
                + "in the config and `systemctl reload nbgwd`, or enter it by hand with `nbgw at IMEI 'AT+CPIN=\"…\"'`."
        case .simPINLastAttempt:
            "Only one PIN attempt is left: nbgw will not risk it. Enter the PIN by hand once you are sure "
                + "(`nbgw at IMEI 'AT+CPIN=\"…\"'`)."
        case .simPUKRequired:
            "The SIM is blocked: enter its PUK and a new PIN by hand (`nbgw at IMEI 'AT+CPIN=\"PUK\",\"NEWPIN\"'`; "
                + "the PUK is on the SIM's card or from the operator), then update the config's PIN."
        case .simLocked:
            "The module or SIM is locked to an operator or wants another code: unlock it by hand "
                + "(`nbgw at IMEI 'AT+CPIN?'` says which code)."
        case .simFailure:
            "The SIM does not work: re-seat or replace it (check its contacts and that it is the right size and "
                + "type); the gateway goes on by itself once a working SIM answers."
        case .simBusy:
            "The SIM is still starting up; the gateway checks again shortly."
        case .radioOff:
            "The radio is off: [modem] radio = \"off\" keeps it so on purpose; otherwise the module refused "
                + "AT+CFUN=1 (see the message): check its supply and firmware, then `nbgw modem reset`."
        case .registrationDenied:
            "The network refused the module: the message names the cause (3GPP TS 24.301 Annex A) and what to do."
        case .noService:
            "No usable cell yet: check the antenna, coverage and the configured bands and radio technologies; the "
                + "module keeps searching and the gateway goes on as soon as it registers."
        case .notResponding:
            "The module stopped answering and resets did not bring it back: power-cycle it (its supply or the USB "
                + "hub port), then `nbgw modem reprobe IMEI|PORT` (or replug it)."
        case .released:
            "An operator has the port: `nbgw modem resume IMEI|PORT` gives it back to the gateway."
        }
    }
}
