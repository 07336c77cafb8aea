/// What the gateway should do with a port: talk AT to it, leave it alone, or never touch it. Every
/// decision carries its reason, written for the logs, `nbgw modem show` and `nbgw discovery list`,
/// and the rule behind it (``DecisionSource``).
///
/// ```swift
/// let decision = policy.decide(port)
/// decision.summary   // "skip: generic USB-UART bridge CP210x 10c4:ea60 (not probed by default: …)"
/// decision.source    // [discovery] generic_bridges = "tagged" (default)
/// ```
public struct CandidateDecision: Sendable, Hashable, Codable {
    /// The three outcomes.
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        /// Probe the port with AT.
        case probe
        /// Leave the port alone: not a modem's AT port as far as the tables, tags and config know.
        case skip
        /// Never open the port: the operator said so (`ID_NBGW_IGNORE=1`, `[discovery] ignore`).
        case ignored
    }

    public var action: Action
    /// An ATKit dialect identifier (`quectel-bg9x`) when the USB IDs or a tag already tell the family
    /// (probe decisions only); the probe's identification has the last word.
    public var dialectHint: String?
    /// Why: "Quectel BG95 / BG77 AT port (if 02)", "ID_NBGW_IGNORE=1 (udev rule)",
    /// "[discovery] probe entry "10c4:ea60" (/etc/nbgw/nbgwd.toml line 31): CP210x USB-UART bridge (…)".
    public var reason: String
    /// The rule or config line the decision rests on.
    public var source: DecisionSource

    public init(action: Action, dialectHint: String? = nil, reason: String, source: DecisionSource) {
        self.action = action
        self.dialectHint = action == .probe ? dialectHint : nil
        self.reason = reason
        self.source = source
    }

    /// Probe the port.
    public static func probe(dialectHint: String?, reason: String, source: DecisionSource) -> CandidateDecision {
        CandidateDecision(action: .probe, dialectHint: dialectHint, reason: reason, source: source)
    }

    /// Leave the port alone.
    public static func skip(reason: String, source: DecisionSource) -> CandidateDecision {
        CandidateDecision(action: .skip, reason: reason, source: source)
    }

    /// Never open the port.
    public static func ignored(reason: String, source: DecisionSource) -> CandidateDecision {
        CandidateDecision(action: .ignored, reason: reason, source: source)
    }

    /// Whether the port should be probed.
    public var isProbe: Bool { action == .probe }

    /// `probe: …`, `skip: …`, `ignored: …`: one line for a log.
    public var summary: String { "\(action.rawValue): \(reason)" }
}
