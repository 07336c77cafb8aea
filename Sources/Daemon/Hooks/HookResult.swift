/// How one run of a hook ended (``HookRunner/run(path:environment:timeout:)``).
public struct HookResult: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The hook exited with this status (0: success).
        case exited(Int32)
        /// The hook was ended by this signal (not ours).
        case signalled(Int32)
        /// The hook ran past its timeout and was stopped (SIGTERM, then SIGKILL).
        case timedOut
        /// The daemon stopped while the hook ran, and stopped it.
        case cancelled
        /// The hook could not be started: `posix_spawn`'s errno (`ENOEXEC`: no `#!` line).
        case notStarted(errno: Int32)
    }

    public var outcome: Outcome
    /// The first ``HookRunner/outputLimit`` bytes of its stdout and stderr, together.
    public var output: [UInt8]
    /// Output bytes beyond the limit, read and dropped.
    public var droppedOutput: Int
    public var duration: Duration

    public init(outcome: Outcome, output: [UInt8] = [], droppedOutput: Int = 0, duration: Duration = .zero) {
        self.outcome = outcome
        self.output = output
        self.droppedOutput = droppedOutput
        self.duration = duration
    }

    /// Whether the hook exited with status 0.
    public var succeeded: Bool { outcome == .exited(0) }

    /// The `result` label of `nbgw_hook_runs_total`: `ok`, `failed` (a non-zero status or a
    /// signal), `timeout`, `cancelled` or `error` (could not start).
    public var resultLabel: String {
        switch outcome {
        case .exited(0): "ok"
        case .exited, .signalled: "failed"
        case .timedOut: "timeout"
        case .cancelled: "cancelled"
        case .notStarted: "error"
        }
    }

    /// The output as text for the log: invalid UTF-8 repaired, the end trimmed, and how much was
    /// dropped.
    public var outputText: String {
        var text = String(decoding: output, as: UTF8.self)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        if droppedOutput > 0 { text += " …(\(droppedOutput) more bytes dropped)" }
        return text
    }
}
