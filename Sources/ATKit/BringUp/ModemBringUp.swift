/// The actions the daemon takes to get a module onto the network, each translated into the
/// module's dialect: APN, radio technologies and bands, PSM and eDRX in seconds, radio on,
/// registration reports, waiting for registration, rebooting.
///
/// ```swift
/// let session = ATSession(transport: port, configuration: dialect.sessionConfiguration())
/// let events = ModemEventHub(urcs: session.urcs, dialect: dialect)
/// let bringUp = ModemBringUp(session: session, dialect: dialect)
/// _ = try await bringUp.apply(ModemBringUpPlan(apn: "iot.example", technologies: [.nbIoT],
///                                              powerSaving: .init(periodicTAU: 86_400, activeTime: 60)))
/// let status = try await bringUp.waitForRegistration(events: events, within: .seconds(600))
/// ```
///
/// Every step throws ``ATError`` when the module refuses a command, and ``ModemBringUpError`` for
/// what is not a single command's failure. Time (deadlines, polling) comes from the injected clock.
public struct ModemBringUp: Sendable {
    public let session: ATSession
    public let dialect: ModemDialect
    let clock: any Clock<Duration>
    let timer: ATSessionClock

    public init(session: ATSession, dialect: ModemDialect, clock: any Clock<Duration> = ContinuousClock()) {
        self.session = session
        self.dialect = dialect
        self.clock = clock
        self.timer = ATSessionClock(clock)
    }

    var port: String { session.portName }

    /// Runs `plan` in the order modules need:
    ///
    /// 1. `AT+CMEE=1`, so refusals say why.
    /// 2. When RAT or bands change: `AT+CFUN=0` first. Why: BC95 `AT+NBAND`, nRF91
    ///    `AT%XSYSTEMMODE` and SARA-R4 `AT+URAT`/`AT+UBANDMASK` are refused with the radio on.
    /// 3. RAT, bands, APN, PSM (+ the dialect's PSM reports), eDRX.
    /// 4. `+CEREG` reports at the plan's level (falling back to lower ones).
    /// 5. `AT+CFUN=1`, unless ``ModemBringUpPlan/leavesRadioOff``.
    @discardableResult
    public func apply(_ plan: ModemBringUpPlan) async throws -> ModemBringUpSummary {
        var sent: [String] = []
        _ = try? await session.send(CMEE.Set(.numeric))
        sent.append(CMEE.Set(.numeric).command)
        if plan.technologies != nil || !plan.bands.isEmpty {
            try await session.send(CFUN.Set(.minimum))
            sent.append(CFUN.Set(.minimum).command)
        }
        if let technologies = plan.technologies {
            sent += try await setRadioAccess(technologies)
        }
        for technology in plan.bands.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            sent += try await setBands(plan.bands[technology]!, for: technology)
        }
        if let apn = plan.apn {
            sent += try await configureAPN(apn, type: plan.pdpType)
        }
        var summary = ModemBringUpSummary(registrationReporting: .disabled)
        if plan.powerSavingDisabled {
            try await disablePowerSaving()
            sent.append(CPSMS.Set.disable.command)
        } else if let psm = plan.powerSaving {
            let granted = try await setPowerSaving(periodicTAU: psm.periodicTAU, activeTime: psm.activeTime)
            summary.requestedPeriodicTAU = granted.periodicTAU
            summary.requestedActiveTime = granted.activeTime
            sent.append(try CPSMS.Set(periodicTAU: psm.periodicTAU, activeTime: psm.activeTime).command)
            sent += try await enablePowerSavingReports()
        }
        for technology in plan.edrx.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            let cycle = plan.edrx[technology]!
            if let requested = try await setEDRX(cycleSeconds: cycle, technology: technology) {
                summary.requestedEDRX[technology] = requested
            }
            if let act = EDRXCycle.AccessTechnology(technology) {
                sent.append(CEDRXS.Set(technology: act, cycleSeconds: cycle).command)
            }
        }
        summary.registrationReporting = try await enableRegistrationReports(preferred: plan.registrationReporting)
        sent.append(CEREG.Set(summary.registrationReporting).command)
        if !plan.leavesRadioOff {
            try await setFunctionality(.full)
            sent.append(CFUN.Set(.full).command)
        }
        summary.commands = sent
        return summary
    }

    /// Sets the APN of the default bearer with the dialect's command (`+CGDCONT` on
    /// ``ModemDialect/defaultContextID``, `+QCGDEFCONT` on BC66). Returns the commands sent.
    @discardableResult
    public func configureAPN(_ apn: String, type: PDPContext.PDPType = .ip) async throws -> [String] {
        let context = PDPContext(cid: dialect.defaultContextID, type: type, apn: apn)
        let requests: [ATCommandRequest]
        do {
            requests = try dialect.apnCommands(context)
        } catch {
            throw ModemBringUpError.invalidArgument(error, port: port)
        }
        return try await run(requests)
    }

    /// Restricts the module to `technologies` (preference order) with the dialect's commands.
    @discardableResult
    public func setRadioAccess(_ technologies: [RadioTechnology]) async throws -> [String] {
        guard let requests = dialect.radioAccessCommands(technologies) else {
            throw ModemBringUpError.unsupported(
                what: "use \(technologies.map(\.rawValue).joined(separator: " + "))",
                dialect: dialect.name,
                port: port
            )
        }
        return try await run(requests)
    }

    /// Restricts `technology` to `bands` with the dialect's commands.
    @discardableResult
    public func setBands(_ bands: [Int], for technology: RadioTechnology) async throws -> [String] {
        guard let requests = dialect.bandCommands(bands, technology) else {
            throw ModemBringUpError.unsupported(
                what: "lock \(technology) to bands \(bands.map(String.init).joined(separator: ","))",
                dialect: dialect.name,
                port: port
            )
        }
        return try await run(requests)
    }

    /// Requests PSM with timers in seconds; returns the values actually requested (rounded up to
    /// what the 3GPP TS 24.008 bit strings can express).
    @discardableResult
    public func setPowerSaving(periodicTAU: Int, activeTime: Int) async throws -> (periodicTAU: Int, activeTime: Int) {
        let command: CPSMS.Set
        do {
            command = try CPSMS.Set(periodicTAU: periodicTAU, activeTime: activeTime)
        } catch {
            throw ModemBringUpError.invalidArgument(error, port: port)
        }
        try await session.send(command)
        return (command.periodicTAUSeconds ?? periodicTAU, command.activeTimeSeconds ?? activeTime)
    }

    /// `AT+CPSMS=0`.
    public func disablePowerSaving() async throws {
        try await session.send(CPSMS.Set.disable)
    }

    /// Switches on the dialect's PSM notifications (`AT+NPSMR=1`, `AT+CPSMSTATUS=1`, ...).
    @discardableResult
    public func enablePowerSavingReports() async throws -> [String] {
        try await run(dialect.powerSavingReports)
    }

    /// Requests an eDRX cycle of at least `cycleSeconds` (nil disables eDRX); returns the cycle
    /// requested.
    @discardableResult
    public func setEDRX(cycleSeconds: Double?, technology: RadioTechnology) async throws -> Double? {
        guard let act = EDRXCycle.AccessTechnology(technology) else {
            throw ModemBringUpError.unsupported(what: "use eDRX on \(technology)", dialect: dialect.name, port: port)
        }
        let command = CEDRXS.Set(technology: act, cycleSeconds: cycleSeconds)
        try await session.send(command)
        return command.cycleSeconds
    }

    /// `AT+CFUN=<level>` with its long timeout.
    public func setFunctionality(_ level: CFUN.Level) async throws {
        try await session.send(CFUN.Set(level))
    }

    /// Asks for `+CEREG` reports at `preferred`, else the next lower level among 5, 4, 2 the
    /// module accepts (some firmware stops at 4 or 2). Returns the level in force.
    @discardableResult
    public func enableRegistrationReports(
        preferred: CEREG.ReportingLevel = .psmAndCause
    ) async throws
        -> CEREG.ReportingLevel
    {
        let candidates = [preferred] + [CEREG.ReportingLevel.psmAndCause, .psm, .location].filter { $0 < preferred }
        var lastError: (any Error)?
        for level in candidates {
            do {
                try await session.send(CEREG.Set(level))
                return level
            } catch let error as ATError where error.finalResult != nil {
                lastError = error
            }
        }
        throw lastError!
    }

    /// Sends `requests` in order; returns their command lines.
    func run(_ requests: [ATCommandRequest]) async throws -> [String] {
        for request in requests {
            _ = try await session.send(request)
        }
        return requests.map(\.command)
    }
}
