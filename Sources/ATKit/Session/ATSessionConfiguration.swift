/// Tunables of an ``ATSession``. Dialects provide their own URC table and quirks on top of these
/// defaults.
public struct ATSessionConfiguration: Sendable {
    /// Timeout for commands that do not set ``ATCommandRequest/timeout``. 10 s is what ubxlib
    /// allows u-blox modules per AT response; Zephyr's SARA-N310 driver uses 6 s. Ordinary commands
    /// answer within milliseconds, so this only bounds how long a dead port takes to notice.
    public var defaultTimeout: Duration

    /// Pause between a final result (or timeout) and writing the next command. Why: modules that
    /// are still emitting URCs or switching their UART to receive right after a final result can
    /// lose the first characters of the next command (auto-bauding SIMCom/u-blox parts, sleepy
    /// Hi21xx); atat defaults to a 20 ms cooldown for the same reason. Zero disables it.
    public var guardTime: Duration

    /// Which lines are unsolicited result codes.
    public var urcTable: ATURCTable

    /// Longest line kept (``ATLineFramer/maxLineLength``).
    public var maxLineLength: Int

    /// How many undelivered URCs ``ATSession/urcs`` keeps; beyond that the oldest are dropped and
    /// reported through ``diagnostics``. Bounded so a session nobody listens to cannot grow forever.
    public var urcBufferLimit: Int

    /// How the session recovers after a timeout (see ``ATSession``).
    public var resync: ATResyncPolicy

    /// Called synchronously (on the session's actor) for events worth logging that are not
    /// responses or URCs. Keep it cheap; nil ignores them.
    public var diagnostics: (@Sendable (ATSessionDiagnostic) -> Void)?

    public init(
        defaultTimeout: Duration = .seconds(10),
        guardTime: Duration = .milliseconds(20),
        urcTable: ATURCTable = .ts27007Baseline,
        maxLineLength: Int = 4096,
        urcBufferLimit: Int = 1024,
        resync: ATResyncPolicy = ATResyncPolicy(),
        diagnostics: (@Sendable (ATSessionDiagnostic) -> Void)? = nil
    ) {
        self.defaultTimeout = defaultTimeout
        self.guardTime = guardTime
        self.urcTable = urcTable
        self.maxLineLength = maxLineLength
        self.urcBufferLimit = urcBufferLimit
        self.resync = resync
        self.diagnostics = diagnostics
    }
}
