import Discovery

/// JSON shapes shared by `list` and `watch`.
enum DiscoveryOutput {
    static func decision(_ decision: CandidateDecision) -> [String: Any?] {
        [
            "probe": decision.isProbe, "action": decision.action.rawValue, "dialectHint": decision.dialectHint,
            "reason": decision.reason, "source": JSONOutput.object(decision.source),
        ]
    }

    static func port(_ port: UdevPort, event: String, policy: CandidatePolicy) -> [String: Any?] {
        ["event": event, "port": JSONOutput.object(port), "decision": decision(policy.decide(port))]
    }
}
