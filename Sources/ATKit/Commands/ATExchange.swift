/// One raw command and what came of it, as a value: for tools that send what an operator typed
/// (`nbgw at`) and must print failures rather than stop at them.
public struct ATExchange: Sendable, Hashable {
    /// How the command ended.
    public enum Outcome: Sendable, Hashable {
        /// A final result arrived (success or failure code).
        case final(ATFinalResult)
        /// No final result within the timeout.
        case timedOut(Duration)
        /// The port closed or the session gave up; the text says why.
        case failed(String)
    }

    public var command: String
    /// Information lines received before the end.
    public var lines: [String]
    public var outcome: Outcome

    public init(command: String, lines: [String], outcome: Outcome) {
        self.command = command
        self.lines = lines
        self.outcome = outcome
    }

    /// Whether the command succeeded (`OK`, `CONNECT`, `SEND OK`).
    public var succeeded: Bool {
        if case .final(let final) = outcome { final.isSuccess } else { false }
    }

    /// The final result as the modem printed it, or a description of what happened instead.
    public var summary: String {
        switch outcome {
        case .final(let final): final.description
        case .timedOut(let after): "no final result within \(after)"
        case .failed(let reason): reason
        }
    }

    /// Sends `command` on `session` with ``ATCommandTimeout/suggested(for:)`` (else `timeout`) and
    /// records the outcome; never throws. `isFatal` is true when the session can no longer be used.
    public static func run(
        _ command: String,
        on session: ATSession,
        timeout: Duration? = nil
    ) async -> (exchange: ATExchange, isFatal: Bool) {
        let request = ATCommandRequest(command, timeout: ATCommandTimeout.suggested(for: command) ?? timeout)
        do {
            let response = try await session.send(request)
            return (ATExchange(command: command, lines: response.lines, outcome: .final(response.final)), false)
        } catch let error as ATError {
            switch error {
            case .commandFailed(_, _, let final, let lines):
                return (ATExchange(command: command, lines: lines, outcome: .final(final)), false)
            case .timeout(_, _, let after):
                return (ATExchange(command: command, lines: [], outcome: .timedOut(after)), false)
            case .invalidCommand(_, let reason):
                return (ATExchange(command: command, lines: [], outcome: .failed(reason)), false)
            case .transportClosed, .sessionClosed, .unresponsive:
                return (ATExchange(command: command, lines: [], outcome: .failed(error.description)), true)
            }
        } catch {
            return (ATExchange(command: command, lines: [], outcome: .failed("\(error)")), true)
        }
    }
}
