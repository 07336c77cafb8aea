/// What one serial interface of a known module is for, from the module's interface map
/// (`docs/discovery.md`, `udev-rules/90-nbgw.rules`).
///
/// Only ``at`` and ``unknown`` ports are probed: a DIAG port never answers AT (a probe there only
/// costs its timeout), an NMEA port streams sentences, and the secondary AT/PPP port reaches the
/// same module as the primary one (probing both would find one IMEI twice).
public enum PortRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// The primary AT command port.
    case at
    /// The secondary AT port kept for PPP data ("modem" port).
    case modem
    /// Qualcomm DIAG / QCDM diagnostics: binary, silent to AT.
    case diag
    /// GNSS output (NMEA sentences).
    case nmea
    /// Modem trace or debug log output.
    case trace
    /// PCM audio.
    case audio
    /// Not established from a source we could read: probed by AT, which settles it.
    case unknown

    /// Whether a port in this role is probed by AT.
    public var isProbed: Bool { self == .at || self == .unknown }

    /// How logs name the role: "AT port", "NMEA port".
    public var label: String {
        switch self {
        case .at: "AT port"
        case .modem: "secondary AT/PPP (modem) port"
        case .diag: "DIAG/QCDM port"
        case .nmea: "NMEA (GNSS) port"
        case .trace: "trace port"
        case .audio: "audio port"
        case .unknown: "port of unverified role"
        }
    }

    /// Reads an `ID_NBGW_PORT_TYPE` value, accepting the synonyms other rule sets use
    /// (`gnss`, `gps`, `qcdm`, `ppp`).
    public init?(udevValue: String) {
        switch udevValue.lowercased() {
        case "at", "at-primary": self = .at
        case "modem", "ppp", "at-ppp", "at-secondary": self = .modem
        case "diag", "qcdm", "dm": self = .diag
        case "nmea", "gnss", "gps": self = .nmea
        case "trace", "log", "debug": self = .trace
        case "audio": self = .audio
        case "unknown": self = .unknown
        default: return nil
        }
    }
}
