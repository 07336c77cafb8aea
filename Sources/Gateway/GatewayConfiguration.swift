import ATKit
import Pairing

/// How the gateway brings modules up and how hard it tries again. The daemon builds it from its
/// config file; every field has the documented default.
public struct GatewayConfiguration: Sendable {
    /// What each module is set to (APN, RATs, bands, PSM/eDRX), translated by its dialect.
    public var plan: ModemBringUpPlan
    /// How ports are probed. A port's own ``ModemPort/baudRates`` are tried first.
    public var probe: ModemProbeOptions
    /// How long a module may search for the network (`+CEREG` home or roaming) after the bring-up,
    /// or stay unregistered once it was ready, before it is shown `waiting` with `NO_SERVICE` and the
    /// last signal seen. Default 120 s: the seed's activation timeout
    /// (``BindingRules/defaultActivationTimeout``), the time the product allows from power-on to an
    /// activated device. The module keeps searching and the supervisor keeps following it: the
    /// state changes, nothing is restarted (a first NB-IoT attach can take minutes: raise it for
    /// deep-coverage sites to keep them `searching` longer).
    public var registrationTimeout: Duration
    /// How often a ready module's signal (`+CSQ`, `+CESQ`) and registration (`+CEREG?`) are read.
    /// Default 60 s: often enough for an operator's view of a fixed installation, rare enough that
    /// the polls cost a module nothing measurable (each is three short commands). A module in PSM
    /// is not polled (it could not answer, and waking it costs energy).
    public var signalPollInterval: Duration
    /// The first retry delay after a failure. Default 1 s: long enough not to spin on a port that
    /// fails at once (a modem answering `ERROR` to everything), short enough that a transient
    /// failure (a busy port, a module still booting) costs little.
    public var backoffInitial: Duration
    /// The longest retry delay. Default 60 s: a module left failing (denied SIM, no coverage) is
    /// retried once a minute, which keeps the log and the network quiet while recovering within a
    /// minute of the cause going away.
    public var backoffCap: Duration
    /// The cloud product the modules register as; nil uses each module's model (`AT+CGMM`), or
    /// its dialect when the model is unknown.
    public var productID: String?
    /// The fraction of each backoff delay that is random (0…1): delays are drawn from
    /// `[delay × (1 − jitter), delay]`. Default 0.2. Why: modules that fail together (a cell
    /// outage, a cloud outage) must not retry in lockstep; 20 % spreads 64 modems' retries over a
    /// fifth of the delay while keeping the schedule predictable. Tests set 0.
    public var backoffJitter: Double = 0.2
    /// How long a module that announced a reboot while ready may take to answer `AT` again before
    /// the gateway probes it afresh. Default 30 s: BG95 needs about 5 s to `RDY`, SARA-R4 about 6 s,
    /// a BC95 banner comes up to 30 s after `AT+NRB` (docs/at-engine.md, timing quirks).
    public var rebootRecovery: Duration = .seconds(30)
    /// How often a module without a usable SIM (absent, failed, locked) is asked `AT+CPIN?` again,
    /// besides the SIM URCs that announce a change at once. Default 10 s: a SIM pushed into its slot
    /// is noticed within seconds, and one short command every 10 s costs a waiting module nothing.
    public var simPollInterval: Duration = .seconds(10)
    /// Keep every module's radio off (`[modem] radio = "off"`): the bring-up ends without
    /// `AT+CFUN=1` and the module shows `waiting` with `RADIO_OFF`. Otherwise a module found with its
    /// radio off (`+CFUN: 0` or `4`) is brought up again.
    public var keepsRadioOff = false
    /// How many consecutive attempts on a module that stopped answering (each one first rebooting
    /// it with its dialect's command, where it still takes one) before the supervisor gives up with
    /// `NOT_RESPONDING` and waits for an operator. Default 3: a module that survives a reboot comes
    /// back after the first; three without an answer is a power or hardware problem no further
    /// retry fixes, and retrying forever only fills the log.
    public var maxResets = 3
    /// The SIM PINs supervisors may enter (``SIMPINBook``); ``Gateway/updateSIMPINs(_:)`` replaces
    /// them while the gateway runs.
    public var simPINs = SIMPINBook()
    /// Timeout of the supervisor's own commands (bring-up, polls) unless a command carries a
    /// longer one (`AT+CFUN=` 60 s, NVM writes 15 s). Default 10 s, as ``ATSessionConfiguration``.
    public var commandTimeout: Duration = .seconds(10)

    public init(
        plan: ModemBringUpPlan = .init(),
        probe: ModemProbeOptions = .init(),
        registrationTimeout: Duration = BindingRules.defaultActivationTimeout,
        signalPollInterval: Duration = .seconds(60),
        backoffInitial: Duration = .seconds(1),
        backoffCap: Duration = .seconds(60),
        productID: String? = nil
    ) {
        self.plan = plan
        self.probe = probe
        self.registrationTimeout = registrationTimeout
        self.signalPollInterval = signalPollInterval
        self.backoffInitial = backoffInitial
        self.backoffCap = backoffCap
        self.productID = productID
    }

    /// The backoff these settings describe.
    public var backoff: BackoffPolicy {
        BackoffPolicy(initial: backoffInitial, cap: backoffCap, jitter: backoffJitter)
    }
}
