/// A network registration report: the read response of `AT+CEREG?` / `AT+CGREG?` / `AT+CREG?`
/// or the matching URC (3GPP TS 27.007 §10.1.22, §10.1.20, §7.2).
///
/// ```
/// read (n=5):  +CEREG: 5,1,"0A0B","01020304",9,,,"00100110","01011111"
///                      n stat tac    ci         AcT cause Active-Time Periodic-TAU
/// URC  (n=5):  +CEREG: 1,"0A0B","01020304",9,,,"00100110","01011111"
/// URC  (n=1):  +CEREG: 5        BC95 read (n=0): +CEREG:0,1
/// ```
///
/// Absent and unknown fields are nil: `"FFFE"`/`"FFFF"` TACs and `"FFFFFFFF"` cell ids mean
/// "unknown" and are dropped; a deactivated PSM timer (unit `111`) decodes to nil seconds.
public struct RegistrationStatus: Sendable, Hashable, CustomStringConvertible {
    /// Which command or URC the report came from.
    public enum Domain: String, Sendable, Hashable {
        /// `+CEREG` (EPS, LTE / LTE-M / NB-IoT).
        case eps = "+CEREG"
        /// `+CGREG` (GPRS).
        case gprs = "+CGREG"
        /// `+CREG` (circuit-switched).
        case circuitSwitched = "+CREG"
    }

    public var domain: Domain
    /// `<n>`, the reporting level; only read responses carry it.
    public var reportingLevel: Int?
    /// `<stat>` as reported (two digits are possible).
    public var stat: Int
    /// `<tac>` (`+CEREG`) or `<lac>` (`+CREG`, `+CGREG`): hex, as reported, without quotes.
    public var areaCode: String?
    /// `<ci>`: hex, as reported (SARA-R410M does not zero-pad it).
    public var cellID: String?
    /// `<AcT>` as reported; see ``RadioTechnology`` for what it means per dialect.
    public var accessTechnology: Int?
    /// `<rac>` (`+CGREG` only).
    public var routingAreaCode: String?
    /// `<cause_type>`: 0 = EMM cause (3GPP TS 24.301 Annex A), 1 = manufacturer-specific.
    public var causeType: Int?
    /// `<reject_cause>`: e.g. 11 PLMN not allowed, 15 no suitable cells in tracking area.
    public var rejectCause: Int?
    /// `<Active-Time>` (T3324): the 8-character bit string as granted by the network.
    public var activeTime: String?
    /// `<Periodic-TAU>` (T3412 extended) or `<Periodic-RAU>`: the 8-character bit string.
    public var periodicUpdate: String?

    public init(
        domain: Domain = .eps,
        reportingLevel: Int? = nil,
        stat: Int,
        areaCode: String? = nil,
        cellID: String? = nil,
        accessTechnology: Int? = nil,
        routingAreaCode: String? = nil,
        causeType: Int? = nil,
        rejectCause: Int? = nil,
        activeTime: String? = nil,
        periodicUpdate: String? = nil
    ) {
        self.domain = domain
        self.reportingLevel = reportingLevel
        self.stat = stat
        self.areaCode = areaCode
        self.cellID = cellID
        self.accessTechnology = accessTechnology
        self.routingAreaCode = routingAreaCode
        self.causeType = causeType
        self.rejectCause = rejectCause
        self.activeTime = activeTime
        self.periodicUpdate = periodicUpdate
    }

    /// `<stat>` interpreted; nil for values outside 27.007 and the Nordic extension.
    public var state: RegistrationState? { RegistrationState(rawValue: stat) }

    /// Whether the module is registered (home, roaming, or an SMS-only/CSFB variant).
    public var isRegistered: Bool { state?.isRegistered ?? false }

    /// The granted Active-Time (T3324) in seconds; nil when absent or deactivated.
    public var activeTimeSeconds: Int? { activeTime.flatMap { PSMTimer.activeTime.seconds(fromBits: $0) } }

    /// The granted Periodic-TAU (T3412 extended) in seconds; nil when absent or deactivated.
    public var periodicTAUSeconds: Int? { periodicUpdate.flatMap { PSMTimer.periodicTAU.seconds(fromBits: $0) } }

    /// ``areaCode`` as a number.
    public var areaCodeValue: Int? { areaCode.flatMap { Int($0, radix: 16) } }

    /// ``cellID`` as a number.
    public var cellIDValue: Int? { cellID.flatMap { Int($0, radix: 16) } }

    public var description: String {
        var parts = ["\(domain.rawValue) stat \(stat)\(state.map { " (\($0))" } ?? "")"]
        if let areaCode { parts.append("area \(areaCode)") }
        if let cellID { parts.append("cell \(cellID)") }
        if let accessTechnology { parts.append("AcT \(accessTechnology)") }
        if let rejectCause { parts.append("reject cause \(rejectCause) (type \(causeType.map(String.init) ?? "?"))") }
        if let activeTime { parts.append("T3324 \(activeTime)") }
        if let periodicUpdate { parts.append("T3412 \(periodicUpdate)") }
        return parts.joined(separator: ", ")
    }
}
