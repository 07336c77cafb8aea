/// What ``ModemProbe`` tries and how long it waits.
///
/// The defaults bound a port that never answers to about
/// `baudRates.count × wakeAttempts × wakeTimeout` = 5 × 3 × 250 ms ≈ 3.8 s, and a module that
/// answers `AT` but then stops answering to a few ``queryTimeout``s.
public struct ModemProbeOptions: Sendable {
    /// The order `docs/at-dialects.md` §1 recommends: 115200 (most modules, and every USB port,
    /// which ignores the speed), 9600 (Hi21xx NB-IoT: BC95, SARA-N2), then the rarer fixed rates.
    public static let defaultBaudRates = [115_200, 9600, 921_600, 230_400, 57600]

    /// Speeds to try, in order.
    public var baudRates: [Int]
    /// `AT`s sent per speed before giving up on it. Why more than one: auto-bauding modules
    /// (SIM70x0, SARA-R5, BC66) use the first `AT` to measure the speed and do not answer it, and
    /// sleeping ones (BC95 in PSM, BC66 with `AT+QSCLK=1`) lose the first bytes while waking.
    public var wakeAttempts: Int
    /// How long to wait for an answer to each `AT`. Modules answer `AT` within tens of
    /// milliseconds even at 9600 baud (`AT\r\r\nOK\r\n` is 11 bytes, 11 ms on the wire).
    public var wakeTimeout: Duration
    /// Timeout of each query once the module answered. Queries answer in milliseconds; SIM reads
    /// (`+CIMI`, ICCID) take a few hundred on slow SIMs. A query that times out costs this once and
    /// its field is reported as null.
    public var queryTimeout: Duration
    /// Pause between commands (``ATSessionConfiguration/guardTime``). The probe does not know the
    /// family before `+CGMM`, so it uses the 20 ms every catalogued dialect uses.
    public var guardTime: Duration
    /// How long to wait for a module that rebooted in the middle of the probe to answer again.
    public var rebootRecoveryBudget: Duration
    /// Put `+CEREG` reporting back to the level the module had, after raising it to read the
    /// location and PSM fields (good manners on a port another program will use).
    public var restoresRegistrationReporting: Bool
    /// Take the port's exclusive lock (``SerialPortConfiguration/exclusive``).
    public var exclusive: Bool
    /// Called with every byte exchanged, for `--trace`-style logging.
    public var trace: (@Sendable (ATTraceEvent) -> Void)?
    /// Called once per probe, on the probe's task, as soon as a valid IMEI has been read (with the
    /// manufacturer, model and firmware read before it), before the SIM, registration, signal and
    /// operator queries: a caller can claim and record the module about 0.4 s before the report is
    /// complete. Its ``ModemIdentification/Decision`` says whether the probe goes on. The remaining
    /// queries wait while it runs, so it must not block: hand anything slow (a store write) to
    /// another task. Not called when no valid IMEI was read.
    public var onIdentified: (@Sendable (ModemIdentification) -> ModemIdentification.Decision)?

    public init(
        baudRates: [Int] = ModemProbeOptions.defaultBaudRates,
        wakeAttempts: Int = 3,
        wakeTimeout: Duration = .milliseconds(250),
        queryTimeout: Duration = .seconds(3),
        guardTime: Duration = .milliseconds(20),
        rebootRecoveryBudget: Duration = .seconds(20),
        restoresRegistrationReporting: Bool = true,
        exclusive: Bool = true,
        trace: (@Sendable (ATTraceEvent) -> Void)? = nil,
        onIdentified: (@Sendable (ModemIdentification) -> ModemIdentification.Decision)? = nil
    ) {
        self.baudRates = baudRates.isEmpty ? ModemProbeOptions.defaultBaudRates : baudRates
        self.wakeAttempts = max(1, wakeAttempts)
        self.wakeTimeout = wakeTimeout
        self.queryTimeout = queryTimeout
        self.guardTime = guardTime
        self.rebootRecoveryBudget = rebootRecoveryBudget
        self.restoresRegistrationReporting = restoresRegistrationReporting
        self.exclusive = exclusive
        self.trace = trace
        self.onIdentified = onIdentified
    }

    /// Options that try only `baudRate` (the operator knows the speed).
    public static func fixed(baudRate: Int) -> ModemProbeOptions {
        ModemProbeOptions(baudRates: [baudRate])
    }
}
