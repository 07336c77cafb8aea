import Dispatch
import Foundation
import Synchronization

/// Set by SIGINT (Ctrl-C) or SIGTERM (`kill`, `systemctl stop`, a CI job's timeout); a batch polls
/// it between chunks and stops at a committed boundary, prints its summary and exits 130.
///
/// Why SIGTERM too: it is what service managers and `timeout(1)` send first, and it used to kill a
/// batch with status 143 and no summary (security review I5); the store and the report stayed
/// consistent, but the operator was not told where it stopped.
final class StopFlag: Sendable {
    /// The signals that ask a batch to stop.
    static let signals = [SIGINT, SIGTERM]

    private let stopped = Mutex(false)
    /// Kept alive while the flag is (a released source stops delivering). Set once, by `install()`
    /// on the thread that makes the flag, before a source can fire; no other code touches them.
    private nonisolated(unsafe) var sources: [any DispatchSourceSignal] = []

    var isSet: Bool { stopped.withLock { $0 } }

    /// Routes SIGINT and SIGTERM to this flag instead of killing the process. A second signal of
    /// either kind still kills it, with that signal.
    func install() {
        for number in Self.signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let again = self.stopped.withLock { stopped in
                    defer { stopped = true }
                    return stopped
                }
                if again {
                    signal(number, SIG_DFL)
                    raise(number)
                }
                let name = number == SIGINT ? "Ctrl-C" : "SIGTERM"
                FileHandle.standardError.write(
                    Data("\n\(name): stopping at the next chunk boundary (Ctrl-C or SIGTERM again to abort)…\n".utf8)
                )
            }
            source.resume()
            sources.append(source)
        }
    }
}
