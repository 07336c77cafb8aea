import Foundation

extension SimulatedModem {
    // MARK: Boot

    /// Resets the module: settings back to defaults, no answers until the banner is out.
    func reboot(cause: String) {
        statistics.reboots += 1
        booting = true
        registrationEpoch += 1
        activityEpoch += 1
        echo = true
        errorMode = 0
        ceregLevel = 0
        cregLevel = 0
        cgregLevel = 0
        operatorFormat = 0
        powerSavingReports = false
        inPowerSaving = false
        trainedSpeed = nil
        discardingTrainingLine = false
        lineBuffer.removeAll()
        functionality = family.initialFunctionality
        stat = 0
        pinVerified = false
        answerQueueEnd = host.now
        after(family.bootDuration) { [self] in
            boot(cause: cause)
        }
    }

    /// The banner, then the application's ready lines, then the network.
    func boot(cause: String) {
        booting = false
        var bytes = family.bootNoise
        if !family.bootLines.isEmpty {
            let ending = family.bootLineEnding
            let lines = family.bootLines.map { $0.replacingOccurrences(of: "{cause}", with: cause) }
            bytes += Array((ending + lines.joined(separator: ending) + ending).utf8)
        }
        for line in family.readyLines {
            bytes += Array("\r\n\(line)\r\n".utf8)
        }
        if family.bootEndsWithOK {
            bytes += Array("\r\nOK\r\n".utf8)
        }
        if !bytes.isEmpty { send(bytes) }
        publish()
        settleBusySIM()
        if functionality == 1 { startRegistration() }
    }

    // MARK: Registration

    var isRegistered: Bool { stat == 1 || stat == 5 }

    /// The Active-Time and Periodic-TAU the network grants, if PSM is on.
    var grantedPowerSaving: (periodicTAU: String, activeTime: String)? {
        if let requested = requestedPowerSaving { return requested }
        return configuration.powerSaving ? ("00111000", "00100001") : nil
    }

    /// Radio on: searching after the family's search delay, then the scenario's verdict.
    func startRegistration() {
        registrationEpoch += 1
        let epoch = registrationEpoch
        guard functionality == 1, simUsable else {
            // nRF91 says why it cannot register: stat 90, a UICC failure (its +CEREG extension).
            setStat(sim == .failure && family.id == "nrf9160" ? 90 : 0)
            return
        }
        after(family.searchDelay) { [self] in
            guard epoch == registrationEpoch else { return }
            setStat(2)
        }
        after(family.registrationDelay) { [self] in
            guard epoch == registrationEpoch else { return }
            switch scenario {
            case .home: setStat(1)
            case .roaming: setStat(5)
            case .denied: setStat(3)
            case .never: return
            }
            if isRegistered { scheduleSleep() }
        }
    }

    /// Radio off.
    func stopRegistration() {
        registrationEpoch += 1
        setStat(0)
    }

    func setStat(_ value: Int) {
        guard value != stat else { return }
        stat = value
        if ceregLevel > 0 { sendLine("+CEREG\(family.colon)\(registrationFields(level: ceregLevel))") }
        if cregLevel > 0 { sendLine("+CREG\(family.colon)\(stat)") }
        if cgregLevel > 0 { sendLine("+CGREG\(family.colon)\(stat)") }
        publish()
    }

    var rejectCause: Int {
        if case .denied(let cause) = scenario { return cause }
        return 0
    }

    /// The `+CEREG` fields after `<n>` for reporting level `level` (3GPP TS 27.007 §10.1.22).
    func registrationFields(level: Int) -> String {
        var fields = [String(stat)]
        guard level >= 2 else { return fields[0] }
        if isRegistered {
            fields += ["\"\(family.trackingAreaCode)\"", "\"\(family.cellID)\"", String(family.accessTechnology)]
        } else if stat == 3 && level >= 3 {
            fields += ["", "", ""]
        } else {
            return fields.joined(separator: ",")
        }
        let timers = isRegistered ? grantedPowerSaving : nil
        switch level {
        case 3:
            if stat == 3 { fields += ["0", String(rejectCause)] }
        case 4:
            if let timers { fields += ["", "", "\"\(timers.activeTime)\"", "\"\(timers.periodicTAU)\""] }
        case 5:
            if stat == 3 {
                fields += ["0", String(rejectCause)]
            } else if let timers {
                fields += ["", "", "\"\(timers.activeTime)\"", "\"\(timers.periodicTAU)\""]
            }
        default:
            break
        }
        return fields.joined(separator: ",")
    }

    // MARK: Power saving

    /// Any command restarts the inactivity timer that leads to PSM.
    func noteActivity() {
        activityEpoch += 1
        if isRegistered { scheduleSleep() }
    }

    /// Enters PSM once the Active-Time has passed without activity.
    func scheduleSleep() {
        guard let timers = grantedPowerSaving, let seconds = Self.activeTimeSeconds(timers.activeTime) else { return }
        let epoch = activityEpoch
        after(.seconds(seconds)) { [self] in
            guard epoch == activityEpoch, isRegistered, !inPowerSaving, !booting else { return }
            inPowerSaving = true
            if let urc = family.powerSavingEnterURC, powerSavingReports || family.powerSavingReportCommand == nil {
                sendLine(urc)
            }
            publish()
        }
    }

    func leavePowerSaving() {
        inPowerSaving = false
        if let urc = family.powerSavingExitURC, powerSavingReports || family.powerSavingReportCommand == nil {
            sendLine(urc)
        }
    }

    /// T3324 bit string → seconds (unit 000 2 s, 001 1 min, 010 6 min; 111 deactivated).
    static func activeTimeSeconds(_ bits: String) -> Int? {
        guard bits.count == 8, let raw = Int(bits, radix: 2) else { return nil }
        let steps = [2, 60, 360, 60, 60, 60, 60]
        let unit = raw >> 5
        guard unit < 7 else { return nil }
        return steps[unit] * (raw & 0x1F)
    }

    // MARK: GNSS port

    /// An NMEA sentence a second (never faster than every 50 ms, whatever the time scale).
    func streamNMEA() {
        let period = max(scaled(.seconds(1)), .milliseconds(50))
        host.schedule(at: host.now + period) { [self] in
            send(Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n".utf8))
            streamNMEA()
        }
    }
}
