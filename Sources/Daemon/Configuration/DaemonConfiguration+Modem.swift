import Pairing

extension DaemonConfiguration {
    /// `[modem]`: what every module is brought up with (3GPP TS 27.007 §10.1.1 `+CGDCONT`,
    /// §7.3 `+COPS`, §7.38 `+CPSMS`, §7.40 `+CEDRXS`), and the supervisors' timing.
    public struct Modem: Sendable, Equatable {
        /// PSM (`+CPSMS`): leave the module's setting alone, switch it off, or request timers.
        public enum PowerSaving: Sendable, Equatable {
            case unchanged
            case off
            /// Requested Periodic-TAU (T3412 extended) and Active-Time (T3324), in seconds.
            case on(periodicTAU: Int, activeTime: Int)
        }

        /// Radio technology names `rat`, `bands` and `edrx` accept (ATKit's `RadioTechnology`).
        public static let technologyNames = ["nb-iot", "lte-m", "lte", "gsm", "umts", "nr", "ec-gsm-iot"]

        /// The default bearer's APN; nil leaves the module's alone, "" lets the network choose.
        public var apn: String?
        /// Radio technologies in preference order; nil leaves the module's choice alone.
        public var technologies: [String]?
        /// E-UTRA band numbers per technology; empty leaves them alone.
        public var bands: [String: [Int]]
        public var powerSaving: PowerSaving
        /// eDRX cycle in seconds per technology; 0 switches eDRX off for it.
        public var edrx: [String: Double]
        /// How long a module may take from bring-up to registered (`+CEREG: 1|5`) before the
        /// supervisor backs off and retries. The default is the gateway's
        /// (``GatewayConfiguration/registrationTimeout``, 120 s, the seed's activation timeout);
        /// raise it for deep-coverage NB-IoT sites, where a first attach takes minutes.
        public var registrationTimeout: Duration
        /// How often a ready module's signal and registration are read (default 60 s,
        /// ``GatewayConfiguration/signalPollInterval``).
        public var signalPollInterval: Duration
        /// The first retry delay after a failure, doubled per failure up to ``backoffCap``
        /// (default 1 s, ``GatewayConfiguration/backoffInitial``).
        public var backoffInitial: Duration
        /// The longest retry delay (default 60 s, ``GatewayConfiguration/backoffCap``).
        public var backoffCap: Duration
        /// The cloud product id modules are registered under; nil registers them without one.
        public var productID: String?
        /// `radio = "off"`: bring every module up with its radio left off (`waiting`, `RADIO_OFF`).
        public var keepsRadioOff = false
        /// `max_resets`: attempts on a module that stopped answering before giving up
        /// (``GatewayConfiguration/maxResets``, 3; written here like the timings below).
        public var maxResets = 3
        /// `sim_poll_interval`: how often a module without a usable SIM is asked `AT+CPIN?`
        /// (``GatewayConfiguration/simPollInterval``, 10 s; written here like the timings below).
        public var simPollInterval: Duration = .seconds(10)
        /// `sim_pins`: a file of `[[sim]]` entries (readable by the daemon's user only), read at start
        /// and at every reload.
        public var simPINsFile: String?

        public init(
            apn: String? = nil,
            technologies: [String]? = nil,
            bands: [String: [Int]] = [:],
            powerSaving: PowerSaving = .unchanged,
            edrx: [String: Double] = [:],
            // The gateway's defaults (GatewayConfiguration), written here so that reading a config
            // file needs no gateway (Fuzz/: fuzz-toml builds the reader alone); DaemonConfigurationTests
            // holds them equal.
            registrationTimeout: Duration = BindingRules.defaultActivationTimeout,
            signalPollInterval: Duration = .seconds(60),
            backoffInitial: Duration = .seconds(1),
            backoffCap: Duration = .seconds(60),
            productID: String? = nil
        ) {
            self.apn = apn
            self.technologies = technologies
            self.bands = bands
            self.powerSaving = powerSaving
            self.edrx = edrx
            self.registrationTimeout = registrationTimeout
            self.signalPollInterval = signalPollInterval
            self.backoffInitial = backoffInitial
            self.backoffCap = backoffCap
            self.productID = productID
        }
    }
}
