/// How ``ATSession`` makes sure a late final result is never credited to the wrong command.
///
/// After a command times out (or is cancelled while in flight), its final result may still come.
/// Final results carry no command identity (`OK` is just `OK`), so before the next command is
/// written the session sends a *probe*: a harmless read command whose answer has a distinctive
/// information line (the *signature*). Modems answer strictly in order, so the first final result
/// that follows the signature is the probe's, and everything before it belonged to older commands.
/// See ``ATSession`` for the full rule.
public struct ATResyncPolicy: Sendable, Hashable {
    /// Probes, used in rotation; one whose signature an unanswered command also uses is skipped,
    /// so a late answer to that command cannot pass for the probe's.
    public var probes: [ATResyncProbe]
    /// How long to wait for a probe's answer.
    public var timeout: Duration
    /// Consecutive probe timeouts after which queued commands fail with
    /// ``ATError/unresponsive(command:port:attempts:)``. The session keeps probing on the next send.
    public var maxAttempts: Int

    public init(
        probes: [ATResyncProbe] = [.cmee, .cfun],
        timeout: Duration = .seconds(3),
        maxAttempts: Int = 3
    ) {
        self.probes = probes.isEmpty ? [.cmee] : probes
        self.timeout = timeout
        self.maxAttempts = max(1, maxAttempts)
    }
}

/// A side-effect-free command whose answer contains a recognisable information line.
public struct ATResyncProbe: Sendable, Hashable {
    /// The command line, e.g. `AT+CMEE?`.
    public var command: String
    /// The information-line name that proves the answer is the probe's, e.g. `+CMEE`.
    public var signature: String

    public init(command: String, signature: String) {
        self.command = command
        self.signature = signature
    }

    /// `AT+CMEE?` → `+CMEE: <n>` (3GPP TS 27.007 §9.1): supported by every module family we target.
    public static let cmee = ATResyncProbe(command: "AT+CMEE?", signature: "+CMEE")
    /// `AT+CFUN?` → `+CFUN: <fun>` (3GPP TS 27.007 §8.2).
    public static let cfun = ATResyncProbe(command: "AT+CFUN?", signature: "+CFUN")
}
