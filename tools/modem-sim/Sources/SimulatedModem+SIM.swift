/// The simulated SIM (3GPP TS 27.007 §8.3 `+CPIN`, §8.65 `+CPINR`, the CME errors of §9.2.1) and
/// the events a running module can be put through.
extension SimulatedModem {
    /// Whether the SIM can be used: present, or locked and opened with its PIN since the last boot.
    var simUsable: Bool {
        switch sim {
        case .present: true
        case .pin: pinVerified
        default: false
        }
    }

    /// `AT+CPIN?`, `AT+CPIN="<pin>"`, `AT+CPIN="<puk>","<new pin>"`.
    func simPINCommand(_ argument: String) -> Reply {
        if argument == "?" {
            switch sim {
            case .missing: return .cme(10)
            case .failure: return .cme(13)
            case .busy: return .cme(14)
            case .puk: return .lines([info("+CPIN", "SIM PUK")])
            case .pin where !pinVerified: return .lines([info("+CPIN", "SIM PIN")])
            case .pin, .present: return .lines([info("+CPIN", "READY")])
            }
        }
        guard argument.hasPrefix("=") else { return .cme(50) }
        statistics.pinEntries += 1
        let fields = Self.fields(argument)
        switch sim {
        case .missing: return .cme(10)
        case .failure: return .cme(13)
        case .busy: return .cme(14)
        case .present: return .cme(3)
        case .pin where pinVerified: return .cme(3)
        case .pin:
            guard fields.count == 1 else { return .cme(50) }
            guard fields[0] == pin else {
                pinAttemptsLeft -= 1
                if pinAttemptsLeft <= 0 { sim = .puk }
                return .cme(16)
            }
            pinAttemptsLeft = 3
            return Reply(lines: [], final: .ok) { [self] in
                pinVerified = true
                after(.milliseconds(100)) { [self] in
                    sendLine(info("+CPIN", "READY"))
                    if functionality == 1 { startRegistration() }
                }
            }
        case .puk:
            guard fields.count == 2, fields[0] == SimulatedPortConfiguration.puk,
                (4...8).contains(fields[1].count)
            else { return .cme(16) }
            return Reply { [self] in
                sim = .pin
                pin = fields[1]
                pinAttemptsLeft = 3
                pinVerified = true
                if functionality == 1 { startRegistration() }
            }
        }
    }

    /// `AT+CPINR="SIM PIN"` / `"SIM PUK"`.
    func simRetriesCommand(_ argument: String) -> Reply {
        let code = Self.fields(argument).first?.uppercased() ?? ""
        switch (sim, code) {
        case (.missing, _): return .cme(10)
        case (_, "SIM PIN"): return .lines([info("+CPINR", "SIM PIN,\(max(0, pinAttemptsLeft)),3")])
        case (_, "SIM PUK"): return .lines([info("+CPINR", "SIM PUK,10,10")])
        default: return .cme(50)
        }
    }

    /// What a SIM read (`AT+CIMI`) gets when the SIM cannot be used, or nil when it can.
    var simError: Reply? {
        switch sim {
        case .missing: .cme(10)
        case .failure: .cme(13)
        case .busy: .cme(14)
        case .puk: .cme(12)
        case .pin where !pinVerified: .cme(11)
        default: nil
        }
    }

    /// A busy SIM finishes initialising a second after boot.
    func settleBusySIM() {
        guard sim == .busy else { return }
        after(.seconds(1)) { [self] in
            guard sim == .busy else { return }
            sim = .present
            sendLine(info("+CPIN", "READY"))
            if functionality == 1 { startRegistration() }
        }
    }

    /// Plays `event`.
    func trigger(_ event: SimulatedEvent) {
        switch event {
        case .insertSIM(let announce):
            sim = .present
            if announce { sendLine(info("+CPIN", "READY")) }
            if functionality == 1 { startRegistration() }
        case .removeSIM:
            sim = .missing
            sendLine(info("+CPIN", "NOT INSERTED"))
            stopRegistration()
        case .register:
            scenario = .home
            if functionality == 1 && simUsable && !isRegistered { startRegistration() }
        case .deny(let cause):
            scenario = .denied(cause: cause)
            setStat(3)
        case .loseNetwork:
            scenario = .never
            setStat(2)
        case .radioOff:
            functionality = 4
            sendLine(info("+CFUN", "4"))
            stopRegistration()
        }
        publish()
    }
}
