/// The stable codes of the failures a supervisor records (the modem table's `error_code`), each
/// with what an operator should do about it (`nbgw modem show`).
public enum ModemFailureCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nothing answers `AT` at any speed tried.
    case notAModem = "NOT_A_MODEM"
    /// An interface of a module whose AT port is another one (a diagnostic, GNSS or second AT port).
    case secondaryInterface = "SECONDARY_INTERFACE"
    /// The port went away (unplug, hang-up, USB reset) or its node no longer exists.
    case deadPort = "DEAD_PORT"
    /// Another program holds the port's lock.
    case portBusy = "PORT_BUSY"
    /// The port exists but cannot be opened or configured (permissions, driver).
    case portUnavailable = "PORT_UNAVAILABLE"
    /// The module answers `AT` but identification fails, or it stopped answering.
    case modemError = "MODEM_ERROR"
    /// The module gave no valid IMEI.
    case noIMEI = "NO_IMEI"
    /// A bring-up command was refused (APN, RAT, bands, PSM/eDRX, `+CFUN`).
    case bringUpFailed = "BRING_UP_FAILED"
    /// The network denied registration (`+CEREG` stat 3).
    case registrationDenied = "REGISTRATION_DENIED"
    /// No network registration within the registration timeout.
    case registrationTimeout = "REGISTRATION_TIMEOUT"
    /// A ready module lost its registration and did not get it back within the timeout.
    case registrationLost = "REGISTRATION_LOST"
    /// The module rebooted before it was ready.
    case rebooted = "REBOOTED"
    /// The module stopped answering commands.
    case unresponsive = "UNRESPONSIVE"
    /// The cloud refused or did not answer the registration.
    case cloudRegistration = "CLOUD_REGISTRATION"
    /// The store could not record the module.
    case storeUnavailable = "STORE_UNAVAILABLE"

    /// What to do about it.
    public var advice: String {
        switch self {
        case .notAModem:
            "Nothing, if this is a diagnostic or GNSS interface. If a modem should answer here, check its power and the "
                + "line speed (a [[ports]] entry's `baud`, or `nbgw modem probe PORT --baud N`), and try "
                + "`nbgw modem probe PORT`."
        case .secondaryInterface:
            "Nothing: the module is supervised on its AT port (see the message)."
        case .deadPort:
            "Check the cable, the hub's power and `dmesg`; the port is supervised again when it reappears."
        case .portBusy:
            "Another program holds the port: stop ModemManager (`systemctl stop ModemManager`) or install the udev rules "
                + "that set ID_MM_DEVICE_IGNORE=1 (udev-rules/); the gateway retries on its own."
        case .portUnavailable:
            "Check the node's permissions (the daemon's user must be in group dialout) and the driver (`dmesg`)."
        case .modemError:
            "Check the module's supply and firmware; `nbgw at PORT 'AT+CMEE=2' 'AT+CGMI'` shows its own words. The "
                + "gateway retries with backoff."
        case .noIMEI:
            "The module did not report a valid IMEI (AT+CGSN): check its firmware; the gateway retries with backoff."
        case .bringUpFailed:
            "The module refused a setting of the bring-up plan: check the APN, RATs and bands in the config against what "
                + "the module supports (docs/at-engine.md, dialect table)."
        case .registrationDenied:
            "The network rejected the SIM: check the SIM's subscription, that it is activated for NB-IoT/LTE-M, and the "
                + "APN; the reject cause is 3GPP TS 24.301 Annex A (11 PLMN not allowed, 15 no suitable cells)."
        case .registrationTimeout, .registrationLost:
            "No usable cell: check the antenna, coverage and the configured bands, or raise registration_timeout for "
                + "deep-coverage sites (a first NB-IoT attach can take minutes)."
        case .rebooted:
            "The module restarted during the bring-up: check its supply (brown-outs under transmit load are typical); "
                + "the gateway retries with backoff."
        case .unresponsive:
            "The module stopped answering: check its supply and UART wiring; the gateway retries with backoff."
        case .cloudRegistration:
            "The cloud did not register the module (see the message for its code): check the cloud's URL and "
                + "credentials (docs/cloud.md) and its reachability; the gateway retries with backoff."
        case .storeUnavailable:
            "The store could not be written: check disk space and the file's permissions (docs/cli.md, The store)."
        }
    }
}
