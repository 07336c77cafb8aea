/// What the daemon wants a module to be set to, in human units. ``ModemBringUp/apply(_:)``
/// translates it into the dialect's commands.
public struct ModemBringUpPlan: Sendable, Hashable {
    /// PSM timers in seconds (the network may grant other values; `+CEREG` level 4/5 reports them).
    public struct PowerSaving: Sendable, Hashable {
        /// Requested Periodic-TAU (T3412 extended), e.g. 86 400 for a daily check-in.
        public var periodicTAU: Int
        /// Requested Active-Time (T3324): how long the module stays reachable after each activity.
        public var activeTime: Int

        public init(periodicTAU: Int, activeTime: Int) {
            self.periodicTAU = periodicTAU
            self.activeTime = activeTime
        }
    }

    /// The APN of the default bearer; nil leaves it alone, "" lets the network choose.
    public var apn: String?
    public var pdpType: PDPContext.PDPType
    /// Radio technologies in preference order; nil leaves them alone.
    public var technologies: [RadioTechnology]?
    /// E-UTRA bands per technology; empty leaves them alone.
    public var bands: [RadioTechnology: [Int]]
    /// nil leaves PSM alone; ``powerSavingDisabled`` switches it off.
    public var powerSaving: PowerSaving?
    /// Switch PSM off (takes precedence over ``powerSaving``).
    public var powerSavingDisabled: Bool
    /// eDRX cycle in seconds per technology; a nil value disables eDRX for it.
    public var edrx: [RadioTechnology: Double?]
    /// The `+CEREG` level to ask for; lower levels are tried when the module refuses.
    public var registrationReporting: CEREG.ReportingLevel
    /// Leave the radio off at the end (no `AT+CFUN=1`): a gateway told to keep its modules off the air.
    public var leavesRadioOff = false

    public init(
        apn: String? = nil,
        pdpType: PDPContext.PDPType = .ip,
        technologies: [RadioTechnology]? = nil,
        bands: [RadioTechnology: [Int]] = [:],
        powerSaving: PowerSaving? = nil,
        powerSavingDisabled: Bool = false,
        edrx: [RadioTechnology: Double?] = [:],
        registrationReporting: CEREG.ReportingLevel = .psmAndCause
    ) {
        self.apn = apn
        self.pdpType = pdpType
        self.technologies = technologies
        self.bands = bands
        self.powerSaving = powerSaving
        self.powerSavingDisabled = powerSavingDisabled
        self.edrx = edrx
        self.registrationReporting = registrationReporting
    }
}
