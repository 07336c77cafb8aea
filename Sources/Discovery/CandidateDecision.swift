/// What the gateway should do with a port: talk AT to it, or leave it alone. Both carry a reason
/// written for the logs and `nbgw modem show`.
public enum CandidateDecision: Sendable, Hashable {
    /// Probe the port with AT. `dialectHint` is an ATKit dialect identifier (`quectel-bg9x`) when the
    /// USB IDs already tell the family; the probe's identification has the last word.
    /// `reason` reads like "Quectel BG95 / BG77 AT port (if 02)", "CP210x bridge (10c4:ea60)" or
    /// "tagged ID_NBGW_AT_PORT=1".
    case probe(dialectHint: String?, reason: String)
    /// Leave the port alone: "Quectel BG95 / BG77 NMEA port (if 01)", "not USB and not in the config".
    case skip(reason: String)

    /// Whether the port should be probed.
    public var isProbe: Bool {
        if case .probe = self { return true }
        return false
    }

    /// The reason, whichever the decision.
    public var reason: String {
        switch self {
        case .probe(_, let reason), .skip(let reason): reason
        }
    }

    /// The dialect hint of a probe decision.
    public var dialectHint: String? {
        if case .probe(let hint, _) = self { return hint }
        return nil
    }
}
