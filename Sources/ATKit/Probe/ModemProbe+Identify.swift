extension ModemProbe {
    /// The query phase on a port that answered `AT` (see the flow in ``ModemProbe``). Closes the
    /// connection before returning.
    func identify(_ connection: ModemConnection) async throws(ModemProbeError) -> ModemProbeReport {
        let watcher = RebootWatchingTransport(connection.transport)
        let session = ATSession(
            transport: watcher,
            configuration: ATSessionConfiguration(
                defaultTimeout: options.queryTimeout,
                guardTime: options.guardTime,
                // The family is unknown until +CGMM: recognise every family's URCs.
                urcTable: ModemDialect.unionURCTable,
                // One unanswered resync probe is enough to call the module unresponsive: the
                // probe must stay bounded, and a module that cannot answer AT+CMEE? within the
                // query timeout will not answer the rest either.
                resync: ATResyncPolicy(timeout: options.queryTimeout, maxAttempts: 1)
            ),
            clock: clock
        )
        let run = ProbeRun(session: session, watcher: watcher, port: connection.port, options: options, timer: timer)
        do {
            let report = try await identify(run, baudRate: connection.baudRate)
            await session.close()
            return report
        } catch {
            await session.close()
            throw error
        }
    }

    private func identify(_ run: ProbeRun, baudRate: Int) async throws(ModemProbeError) -> ModemProbeReport {
        try await run.setUp()

        // Identity: CGMI/CGMM, else ATI (Quectel prints manufacturer, model and revision).
        var manufacturer = try await run.value(CGMI(), for: "manufacturer")
        var model = try await run.value(CGMM(), for: "model")
        var revision: String?
        if manufacturer == nil || model == nil {
            if case .success(let ati) = try await run.query(ATI()) {
                manufacturer = manufacturer ?? ati.manufacturer
                model = model ?? ati.model
                revision = ati.revision
            }
        }
        guard manufacturer != nil || model != nil else {
            throw .modemError(
                port: run.port,
                command: "AT+CGMI",
                detail: run.notes.last ?? "no identification (AT+CGMI, AT+CGMM and ATI all failed)"
            )
        }
        let dialect = ModemDialect.identify(manufacturer: manufacturer, model: model)
        var report = ModemProbeReport(
            manufacturer: manufacturer,
            model: model,
            dialect: dialect.id,
            baud: baudRate
        )
        report.port = run.port
        report.firmware = try await run.value(CGMR(), for: "firmware") ?? revision

        report.imei = try await readIMEI(run, dialect: dialect)
        if let imei = report.imei, let onIdentified = options.onIdentified {
            let identification = ModemIdentification(
                port: run.port,
                baudRate: baudRate,
                imei: imei,
                manufacturer: manufacturer,
                model: model,
                firmware: report.firmware,
                dialect: dialect.id
            )
            // Why here and not at the end: the IMEI is the 6th of about 18 commands; the rest
            // (SIM, registration, signal, operator) take two thirds of the probe's time.
            if onIdentified(identification) == .stop {
                run.note("stopped after the IMEI at the caller's request")
                report.notes = run.notes
                return report
            }
        }
        let sim = try await readSIMState(run)
        report.sim = sim?.name
        report.imsi = try await run.value(CIMI(), for: "imsi")
        report.iccid = try await readICCID(run, dialect: dialect)
        report.functionality = try await run.value(CFUN.Read(), for: "functionality")?.rawValue

        if let status = try await readRegistration(run) {
            report.registration = ModemProbeReport.Registration(
                stat: status.stat,
                state: status.state?.name,
                tac: status.areaCode,
                ci: status.cellID,
                act: status.accessTechnology,
                technology: status.accessTechnology.flatMap { dialect.technology(forAccessTechnology: $0) }?.rawValue,
                rejectCause: status.rejectCause,
                psm: .init(activeTimeSeconds: status.activeTimeSeconds, periodicTAUSeconds: status.periodicTAUSeconds)
            )
        }

        let quality = try await run.value(CSQ(), for: "rssi_dbm")
        let extended = try await run.value(CESQ(), for: "rsrp_dbm/rsrq_db")
        report.signal = ModemProbeReport.Signal(
            rssiDBm: quality?.rssiDBm,
            rsrpDBm: extended?.rsrpDBm,
            rsrqDB: extended?.rsrqDB
        )

        // Numeric format first: names depend on the module's operator table and language.
        _ = try await run.query(COPS.SetFormat(.numeric))
        report.operator = try await run.value(COPS.Read(), for: "operator")?.name

        report.notes = run.notes
        return report
    }

    /// The IMEI in the dialect's form, falling back on the other `+CGSN` form; only a Luhn-valid
    /// 15-digit answer is reported.
    private func readIMEI(_ run: ProbeRun, dialect: ModemDialect) async throws(ModemProbeError) -> String? {
        let forms: [CGSN.Form] = dialect.imeiQuery == .imei ? [.imei, .bare] : [.bare, .imei]
        var rejected: [String] = []
        for form in forms {
            switch try await run.query(CGSN(form)) {
            case .success(let text) where IMEIValidation.isValid(text):
                return text
            case .success(let text):
                rejected.append("\(CGSN(form).command) answered \(text.debugDescription), not a Luhn-valid IMEI")
            case .failure(let failure):
                rejected.append("\(CGSN(form).command) \(failure)")
            }
        }
        run.note("imei: " + rejected.joined(separator: "; "))
        return nil
    }

    /// `+CPIN?`, or the SIM state its error code gives away.
    private func readSIMState(_ run: ProbeRun) async throws(ModemProbeError) -> SIMState? {
        switch try await run.query(CPIN.Read()) {
        case .success(let state):
            return state
        case .failure(let failure):
            if let final = failure.final, let state = SIMState(error: final) {
                return state
            }
            run.note("sim: AT+CPIN? \(failure)")
            return nil
        }
    }

    private func readICCID(_ run: ProbeRun, dialect: ModemDialect) async throws(ModemProbeError) -> String? {
        var failures: [String] = []
        for query in dialect.iccidQueries {
            switch try await run.query(query) {
            case .success(let iccid): return iccid
            case .failure(let failure): failures.append("\(query.command) \(failure)")
            }
        }
        run.note("iccid: " + failures.joined(separator: "; "))
        return nil
    }

    /// `+CEREG` at level 5 (else 4, else 2) for the location and PSM fields, then the level back;
    /// `+CREG` when the module has no `+CEREG`.
    private func readRegistration(_ run: ProbeRun) async throws(ModemProbeError) -> RegistrationStatus? {
        guard case .success(let initial) = try await run.query(CEREG.Read()) else {
            return try await run.value(CREG.Read(), for: "registration")
        }
        let level = initial.reportingLevel ?? 0
        guard level < CEREG.ReportingLevel.psm.rawValue else { return initial }
        var status = initial
        var raised = false
        for wanted in [CEREG.ReportingLevel.psmAndCause, .psm, .location] where wanted.rawValue > level {
            if case .success = try await run.query(CEREG.Set(wanted)) {
                raised = true
                if case .success(let detailed) = try await run.query(CEREG.Read()) { status = detailed }
                break
            }
        }
        if raised, options.restoresRegistrationReporting,
            let original = CEREG.ReportingLevel(rawValue: level)
        {
            _ = try await run.query(CEREG.Set(original))
        }
        return status
    }
}
