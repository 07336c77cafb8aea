import ATKit
import Foundation
import Synchronization

/// Counts one transport's AT traffic for the metrics: command lines written, failure final
/// results read, and commands given up on (a command written while the previous one still has no
/// final result: the session timed it out, or abandoned it, and moved on).
///
/// The meter works on bytes, below the session, so the probe (whose session ATKit builds
/// internally) and the supervisor's own session are counted alike, and ATKit needs no metrics
/// dependency. It also tells the supervisor the first time the port answers anything: that is
/// when a port stops being "maybe silent".
final class ATTrafficMeter: Sendable {
    private struct State {
        var framer = ATLineFramer(prompts: [])
        var outstanding = false
        var answered = false
    }

    private let state = Mutex(State())
    private let metrics: GatewayMetrics
    private let onFirstAnswer: @Sendable () -> Void

    init(metrics: GatewayMetrics, onFirstAnswer: @escaping @Sendable () -> Void) {
        self.metrics = metrics
        self.onFirstAnswer = onFirstAnswer
    }

    /// Bytes written to the module.
    func sent(_ bytes: [UInt8]) {
        // A command line ends with CR (V.250 §5.2.1); a prompt payload ends with Ctrl-Z or ESC.
        guard bytes.last == 0x0D else { return }
        let timedOut = state.withLock { state in
            defer { state.outstanding = true }
            return state.answered && state.outstanding
        }
        metrics.countCommand()
        if timedOut { metrics.countTimeout() }
    }

    /// Bytes read from the module.
    func received(_ bytes: [UInt8]) {
        let (failures, firstAnswer) = state.withLock { state -> (Int, Bool) in
            var failures = 0
            var firstAnswer = false
            for event in state.framer.feed(bytes) {
                guard case .line(let line) = event,
                    let final = ATFinalResult(line: line.text.trimmingCharacters(in: .whitespaces))
                else { continue }
                state.outstanding = false
                if !state.answered {
                    state.answered = true
                    firstAnswer = true
                }
                if !final.isSuccess { failures += 1 }
            }
            return (failures, firstAnswer)
        }
        if failures > 0 { metrics.countErrors(failures) }
        if firstAnswer { onFirstAnswer() }
    }
}
