/// What an unsolicited result code means for the gateway, decoded with the module's dialect.
public enum ModemEvent: Sendable, Hashable, CustomStringConvertible {
    /// `+CEREG` / `+CGREG` / `+CREG` (3GPP TS 27.007 §10.1.22, §10.1.20, §7.2).
    case registration(RegistrationStatus)
    /// A boot marker (``ModemDialect/bootMarkers``): the module restarted, so echo is back on and
    /// every volatile setting (`+CMEE`, `+CEREG` level) is lost.
    case rebooted(marker: String)
    /// The module entered or left PSM (the dialect's vendor URC).
    case powerSaving(PowerSavingTransition)
    /// `+CPIN: <code>` sent unsolicited (SIMCom, Quectel after boot or PIN entry).
    case sim(SIMState)
    /// A vendor's SIM-status URC (``simStatusURCNames``: Quectel `+QSIMSTAT`/`+QUSIM`, Nordic
    /// `%XSIM`, u-blox `+UUSIMSTAT`): the SIM was inserted, removed or became ready; read `AT+CPIN?`.
    case simStatus(ATURC)
    /// `+CFUN: <fun>` sent unsolicited after boot.
    case functionality(CFUN.Level)
    /// `+CEDRXP` (27.007 §7.41): the eDRX values the network granted.
    case edrx(EDRXSetting)
    /// `+CSCON: <mode>` (27.007 §10.1.31): RRC connected (true) or idle.
    case signallingConnection(connected: Bool)
    /// Anything else, as received.
    case other(ATURC)

    /// Decodes `urc` for a module speaking `dialect`.
    public init(urc: ATURC, dialect: ModemDialect) {
        if dialect.isBootMarker(urc) {
            self = .rebooted(marker: urc.line)
        } else if let transition = dialect.powerSavingTransition(urc) {
            self = .powerSaving(transition)
        } else if let status = RegistrationStatus(urc: urc) {
            self = .registration(status)
        } else if let setting = EDRXSetting(urc: urc) {
            self = .edrx(setting)
        } else {
            let parameters = ATParameterList(urc.parameters)
            switch urc.name {
            case "+CPIN" where parameters.string(0) != nil:
                self = .sim(SIMState(code: parameters.string(0)!))
            case "+CFUN" where parameters.int(0) != nil:
                self = .functionality(CFUN.Level(rawValue: parameters.int(0)!))
            case "+CSCON" where parameters.int(0) != nil:
                self = .signallingConnection(connected: parameters.int(0) == 1)
            case let name where Self.simStatusURCNames.contains(name):
                self = .simStatus(urc)
            default:
                self = .other(urc)
            }
        }
    }

    /// Vendor URCs that announce a change of the SIM (docs/at-engine.md, "SIM"): BG9x `+QSIMSTAT:
    /// <enable>,<inserted>` and `+QUSIM: 1`, nRF91 `%XSIM: <0|1>`, SARA `+UUSIMSTAT: <state>`.
    public static let simStatusURCNames: Set<String> = ["+QSIMSTAT", "+QUSIM", "%XSIM", "+UUSIMSTAT"]

    public var description: String {
        switch self {
        case .registration(let status): "registration: \(status)"
        case .rebooted(let marker): "rebooted (\(marker))"
        case .powerSaving(let transition): "PSM \(transition == .entered ? "entered" : "left")"
        case .sim(let state): "SIM \(state)"
        case .simStatus(let urc): "SIM status \(urc)"
        case .functionality(let level): "CFUN \(level.rawValue)"
        case .edrx(let setting): "eDRX \(setting.cycleSeconds.map { "\($0) s" } ?? "?")"
        case .signallingConnection(let connected): connected ? "RRC connected" : "RRC idle"
        case .other(let urc): "URC \(urc)"
        }
    }
}
