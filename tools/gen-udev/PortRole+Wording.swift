import Discovery

/// How the generated files name a role: in the rules' interface-map comments and in the cells of the
/// module table of `docs/discovery.md`.
extension PortRole {
    /// In a rules comment: `if 02 AT (primary)`.
    var commentLabel: String {
        switch self {
        case .at: "AT (primary)"
        case .modem: "modem (secondary AT / PPP)"
        case .diag: "DIAG/QCDM"
        case .nmea: "NMEA"
        case .trace: "trace"
        case .audio: "audio"
        case .unknown: "unknown role, probed"
        }
    }

    /// In a cell of the module table: the probed port in bold.
    var tableLabel: String {
        switch self {
        case .at: "**AT**"
        case .modem: "modem"
        case .diag: "DIAG"
        case .nmea: "NMEA"
        case .trace: "trace"
        case .audio: "audio"
        case .unknown: "probed"
        }
    }
}
