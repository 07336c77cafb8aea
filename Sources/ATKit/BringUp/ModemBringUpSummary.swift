/// What ``ModemBringUp/apply(_:)`` actually asked the module for, after rounding to what the bit
/// strings can express and falling back to levels the module accepts.
public struct ModemBringUpSummary: Sendable, Hashable {
    /// The `+CEREG` level in force.
    public var registrationReporting: CEREG.ReportingLevel
    /// The requested PSM timers as encoded (seconds), nil when PSM was not touched or disabled.
    public var requestedPeriodicTAU: Int?
    public var requestedActiveTime: Int?
    /// The requested eDRX cycles as encoded (seconds).
    public var requestedEDRX: [RadioTechnology: Double]
    /// The commands sent, in order, for logs.
    public var commands: [String]

    public init(
        registrationReporting: CEREG.ReportingLevel,
        requestedPeriodicTAU: Int? = nil,
        requestedActiveTime: Int? = nil,
        requestedEDRX: [RadioTechnology: Double] = [:],
        commands: [String] = []
    ) {
        self.registrationReporting = registrationReporting
        self.requestedPeriodicTAU = requestedPeriodicTAU
        self.requestedActiveTime = requestedActiveTime
        self.requestedEDRX = requestedEDRX
        self.commands = commands
    }
}
