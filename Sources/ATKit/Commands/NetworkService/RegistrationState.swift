/// The `<stat>` of `+CREG` (3GPP TS 27.007 §7.2), `+CGREG` (§10.1.20) and `+CEREG` (§10.1.22).
public enum RegistrationState: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 0: not registered, not searching.
    case notRegistered = 0
    /// 1: registered, home network.
    case registeredHome = 1
    /// 2: not registered, searching (attaching).
    case searching = 2
    /// 3: registration denied; see the reject cause.
    case denied = 3
    /// 4: unknown (e.g. out of coverage).
    case unknown = 4
    /// 5: registered, roaming.
    case registeredRoaming = 5
    /// 6: registered for "SMS only", home network.
    case registeredSMSOnlyHome = 6
    /// 7: registered for "SMS only", roaming.
    case registeredSMSOnlyRoaming = 7
    /// 8: attached for emergency bearer services only.
    case emergencyOnly = 8
    /// 9: registered for "CSFB not preferred", home network.
    case registeredCSFBNotPreferredHome = 9
    /// 10: registered for "CSFB not preferred", roaming.
    case registeredCSFBNotPreferredRoaming = 10
    /// 90: Nordic nRF91 extension: not registered because of a UICC (SIM) failure.
    case simFailure = 90

    /// Whether the module can carry data: home or roaming registration (1, 5, and the SMS-only and
    /// CSFB variants 6, 7, 9, 10 count as registered for EPS).
    public var isRegistered: Bool {
        switch self {
        case .registeredHome, .registeredRoaming, .registeredSMSOnlyHome, .registeredSMSOnlyRoaming,
            .registeredCSFBNotPreferredHome, .registeredCSFBNotPreferredRoaming:
            true
        default: false
        }
    }

    /// A stable snake_case name for JSON.
    public var name: String {
        switch self {
        case .notRegistered: "not_registered"
        case .registeredHome: "registered_home"
        case .searching: "searching"
        case .denied: "denied"
        case .unknown: "unknown"
        case .registeredRoaming: "registered_roaming"
        case .registeredSMSOnlyHome: "registered_sms_only_home"
        case .registeredSMSOnlyRoaming: "registered_sms_only_roaming"
        case .emergencyOnly: "emergency_only"
        case .registeredCSFBNotPreferredHome: "registered_csfb_not_preferred_home"
        case .registeredCSFBNotPreferredRoaming: "registered_csfb_not_preferred_roaming"
        case .simFailure: "sim_failure"
        }
    }

    public var description: String { name }
}
