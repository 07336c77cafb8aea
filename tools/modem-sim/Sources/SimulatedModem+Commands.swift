import Foundation

extension SimulatedModem {
    /// Executes one command line (`;`-concatenated commands are run in turn, their lines joined,
    /// the first failure ending the line as on real modules).
    func execute(_ line: String) -> Reply {
        var body = line
        guard body.uppercased().hasPrefix("AT") else { return .error }
        body = String(body.dropFirst(2))
        if body.isEmpty { return .ok }
        var combined = Reply()
        var afters: [() -> Void] = []
        for part in Self.split(body) {
            let reply = executeSingle("AT" + part.trimmingCharacters(in: .whitespaces))
            reply.effect?()
            combined.lines += reply.lines
            if let after = reply.after { afters.append(after) }
            switch reply.final {
            case .ok: continue
            default:
                combined.final = reply.final
                combined.after = afters.isEmpty ? nil : { afters.forEach { $0() } }
                return combined
            }
        }
        combined.after = afters.isEmpty ? nil : { afters.forEach { $0() } }
        return combined
    }

    private static func split(_ body: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        for character in body {
            if character == "\"" { quoted.toggle() }
            if character == ";" && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        // "AT+CIMI;+CGSN=1": later parts start with their own prefix.
        return parts.filter { !$0.isEmpty }
    }

    /// The `+NAME<colon>value` line in the family's spacing.
    func info(_ name: String, _ value: String) -> String {
        "\(name)\(family.colon)\(value)"
    }

    private func executeSingle(_ command: String) -> Reply {
        let upper = command.uppercased()
        let (name, argument) = Self.parse(upper)
        let original = Self.parse(command).argument
        switch name {
        case "AT": return .ok
        case "ATE0", "ATE":
            return Reply { [self] in echo = false }
        case "ATE1":
            return Reply { [self] in echo = true }
        case "ATZ", "AT&F":
            return Reply { [self] in
                echo = true
                errorMode = 0
            }
        case "ATI": return .lines(family.identificationLines)
        case "AT+CGMI", "AT+GMI": return .lines([family.manufacturer])
        case "AT+CGMM", "AT+GMM": return .lines([family.model])
        case "AT+CGMR", "AT+GMR": return .lines(family.revisionLines)
        case "AT+CGSN", "AT+GSN": return serialNumber(argument)
        case "AT+CIMI":
            return simError ?? .lines([family.imsi])
        case family.iccidCommand:
            // The ICCID is readable from a locked SIM (EF-ICCID needs no PIN), not from an absent one.
            if sim == .missing { return .cme(10) }
            if sim == .failure { return .cme(13) }
            return .lines([family.iccidPrefix.map { info($0, family.iccid) } ?? family.iccid])
        case "AT+CMEE":
            if argument == "?" { return .lines([info("+CMEE", String(errorMode))]) }
            guard argument.hasPrefix("="), let value = Int(argument.dropFirst()), (0...2).contains(value) else {
                return .cme(50)
            }
            return Reply { [self] in errorMode = value }
        case "AT+CPIN": return simPINCommand(original)
        case "AT+CPINR": return simRetriesCommand(original)
        case "AT+CFUN": return functionalityCommand(argument)
        case "AT+CEREG": return registrationSetting(argument, name: "+CEREG", range: 0...5, level: \.ceregLevel)
        case "AT+CREG": return registrationSetting(argument, name: "+CREG", range: 0...3, level: \.cregLevel)
        case "AT+CGREG": return registrationSetting(argument, name: "+CGREG", range: 0...4, level: \.cgregLevel)
        case "AT+CSQ":
            let value = isRegistered ? "\(family.csq.rssi),\(family.csq.ber)" : "99,99"
            return .lines([info("+CSQ", value)])
        case "AT+CESQ":
            guard let cesq = family.cesq else { return .error }
            let value = isRegistered ? "99,99,255,255,\(cesq.rsrq),\(cesq.rsrp)" : "99,99,255,255,255,255"
            return .lines([info("+CESQ", value)])
        case "AT+COPS": return operatorCommand(argument)
        case "AT+CGATT":
            if argument == "?" { return .lines([info("+CGATT", isRegistered ? "1" : "0")]) }
            guard argument == "=1" || argument == "=0" else { return .cme(50) }
            return argument == "=0" ? Reply { [self] in stopRegistration() } : .ok
        case "AT+CGDCONT": return contextCommand(original)
        case "AT+CPSMS": return powerSavingCommand(original)
        case "AT+CEDRXS": return edrxCommand(original)
        case "AT+CSCON":
            return argument == "?" ? .lines([info("+CSCON", "0,0")]) : .ok
        default:
            break
        }
        if upper == family.rebootWithBanner {
            // Hi21xx: REBOOTING, then the banner, whose closing OK ends this command.
            return Reply(lines: ["REBOOTING"], final: .none) { [self] in reboot(cause: "APPLICATION_AT") }
        }
        if family.rebootCommands.contains(upper) {
            return Reply(lines: [], final: .ok) { [self] in reboot(cause: "APPLICATION_AT") }
        }
        if let report = family.powerSavingReportCommand, upper.hasPrefix(report) {
            return Reply { [self] in powerSavingReports = true }
        }
        if family.vendorCommands.contains(where: { upper.hasPrefix($0) }) {
            return .ok
        }
        return .error
    }

    /// `AT+CGSN` (bare: the serial number on Hi21xx, else the IMEI) and `AT+CGSN=1` (IMEI).
    private func serialNumber(_ argument: String) -> Reply {
        let imei = family.imei(port: index)
        switch argument {
        case "": return .lines([family.serialNumber ?? imei])
        case "=1": return .lines([info("+CGSN", family.quotesIMEI ? "\"\(imei)\"" : imei)])
        case "=0": return .lines([info("+CGSN", family.serialNumber ?? imei)])
        default: return .cme(50)
        }
    }

    private func functionalityCommand(_ argument: String) -> Reply {
        if argument == "?" { return .lines([info("+CFUN", String(functionality))]) }
        if argument == "=?" { return .lines([info("+CFUN", "(0,1,4),(0,1)")]) }
        let fields = argument.dropFirst().split(separator: ",").map { Int($0) }
        guard argument.hasPrefix("="), let level = fields.first ?? nil else { return .cme(50) }
        if family.rebootCommands.contains("AT+CFUN" + argument) {
            return Reply(lines: [], final: .ok) { [self] in reboot(cause: "APPLICATION_AT") }
        }
        guard [0, 1, 4].contains(level) else { return .cme(50) }
        return Reply { [self] in
            let wasOn = functionality == 1
            functionality = level
            if level == 1 && !wasOn { startRegistration() }
            if level != 1 { stopRegistration() }
        }
    }

    private func registrationSetting(
        _ argument: String,
        name: String,
        range: ClosedRange<Int>,
        level: ReferenceWritableKeyPath<SimulatedModem, Int>
    ) -> Reply {
        switch argument {
        case "?":
            let current = self[keyPath: level]
            let fields = name == "+CEREG" ? registrationFields(level: current) : String(stat)
            return .lines([info(name, "\(current),\(fields)")])
        case "=?":
            return .lines([info(name, "(\(range.lowerBound)-\(range.upperBound))")])
        default:
            guard argument.hasPrefix("="), let value = Int(argument.dropFirst()), range.contains(value) else {
                return .cme(50)
            }
            return Reply { [self] in self[keyPath: level] = value }
        }
    }

    private func operatorCommand(_ argument: String) -> Reply {
        switch argument {
        case "?":
            guard isRegistered else { return .lines([info("+COPS", "0")]) }
            let name = operatorFormat == 2 ? family.operatorNumeric : family.operatorName
            return .lines([info("+COPS", "0,\(operatorFormat),\"\(name)\",\(family.accessTechnology)")])
        case "=?":
            let entry =
                "(2,\"\(family.operatorName)\",\"\(family.operatorName)\",\"\(family.operatorNumeric)\",\(family.accessTechnology))"
            return .lines([info("+COPS", "\(entry),,(0,1,2,3,4),(0,1,2)")])
        default:
            let fields = argument.dropFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard argument.hasPrefix("="), let mode = Int(fields.first ?? "") else { return .cme(50) }
            if mode == 3, fields.count >= 2, let format = Int(fields[1]), (0...2).contains(format) {
                return Reply { [self] in operatorFormat = format }
            }
            guard [0, 1, 2, 4].contains(mode) else { return .cme(50) }
            if mode == 2 { return Reply { [self] in stopRegistration() } }
            return Reply { [self] in
                if !isRegistered && functionality == 1 { startRegistration() }
            }
        }
    }

    private func contextCommand(_ argument: String) -> Reply {
        if argument == "?" {
            return .lines(
                contexts.keys.sorted().map { cid in
                    let context = contexts[cid]!
                    return info("+CGDCONT", "\(cid),\"\(context.type)\",\"\(context.apn)\",\"\",0,0")
                }
            )
        }
        let fields = Self.fields(argument)
        guard argument.hasPrefix("="), let cid = Int(fields.first ?? ""), (0...24).contains(cid) else {
            return .cme(50)
        }
        let type = fields.count > 1 ? fields[1] : "IP"
        let apn = fields.count > 2 ? fields[2] : ""
        return Reply { [self] in contexts[cid] = (type, apn) }
    }

    private func powerSavingCommand(_ argument: String) -> Reply {
        if argument == "?" {
            guard let requested = requestedPowerSaving else { return .lines([info("+CPSMS", "0")]) }
            return .lines([info("+CPSMS", "1,,,\"\(requested.periodicTAU)\",\"\(requested.activeTime)\"")])
        }
        let fields = Self.fields(argument)
        guard argument.hasPrefix("="), let mode = Int(fields.first ?? "") else { return .cme(50) }
        if mode == 0 { return Reply { [self] in requestedPowerSaving = nil } }
        let tau = fields.count > 3 ? fields[3] : "00111000"
        let active = fields.count > 4 ? fields[4] : "00100001"
        guard mode == 1, Self.isBits(tau), Self.isBits(active) else { return .cme(50) }
        return Reply { [self] in
            requestedPowerSaving = (tau, active)
            if isRegistered { scheduleSleep() }
        }
    }

    private func edrxCommand(_ argument: String) -> Reply {
        if argument == "?" {
            return .lines(edrx.keys.sorted().map { info("+CEDRXS", "\($0),\"\(edrx[$0]!)\"") })
        }
        let fields = Self.fields(argument)
        guard argument.hasPrefix("="), let mode = Int(fields.first ?? ""),
            let act = Int(fields.count > 1 ? fields[1] : "")
        else { return .cme(50) }
        if mode == 0 || mode == 3 { return Reply { [self] in edrx[act] = nil } }
        let value = fields.count > 2 ? fields[2] : "0101"
        guard value.count == 4, value.allSatisfy({ $0 == "0" || $0 == "1" }) else { return .cme(50) }
        return Reply { [self] in
            edrx[act] = value
            if mode == 2, isRegistered {
                sendLine(info("+CEDRXP", "\(act),\"\(value)\",\"\(value)\",\"0011\""))
            }
        }
    }

    /// Splits `AT+NAME<rest>` into `AT+NAME` and `<rest>` (`?`, `=?`, `=1,2`, or empty).
    static func parse(_ command: String) -> (name: String, argument: String) {
        if let index = command.firstIndex(where: { $0 == "=" || $0 == "?" }) {
            return (String(command[..<index]), String(command[index...]))
        }
        // Basic commands carry their argument in the name: ATE0, ATZ.
        return (command, "")
    }

    /// The comma-separated fields after `=`, quotes removed.
    static func fields(_ argument: String) -> [String] {
        guard argument.hasPrefix("=") else { return [] }
        return argument.dropFirst().split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }

    static func isBits(_ text: String) -> Bool {
        text.count == 8 && text.allSatisfy { $0 == "0" || $0 == "1" }
    }
}

extension SimulatedModem.Reply {
    /// An `OK` with a state change applied at once.
    init(effect: @escaping () -> Void) {
        self.init(lines: [], final: .ok, effect: effect, after: nil)
    }

    /// A reply followed, once written, by `after`.
    init(lines: [String], final: SimulatedModem.Final, after: @escaping () -> Void) {
        self.init(lines: lines, final: final, effect: nil, after: after)
    }
}
