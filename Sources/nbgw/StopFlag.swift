import Dispatch
import Foundation
import Synchronization

/// Set by SIGINT (Ctrl-C); a batch polls it between chunks and stops at a committed boundary.
final class StopFlag: Sendable {
    private let stopped = Mutex(false)
    /// Kept alive while the flag is (a released source stops delivering). Set once, by `install()`
    /// on the thread that makes the flag, before the source can fire; no other code touches it.
    private nonisolated(unsafe) var source: (any DispatchSourceSignal)?

    var isSet: Bool { stopped.withLock { $0 } }

    /// Routes SIGINT to this flag instead of killing the process. A second Ctrl-C still kills it.
    func install() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in
            guard let self else { return }
            let again = self.stopped.withLock { stopped in
                defer { stopped = true }
                return stopped
            }
            if again {
                signal(SIGINT, SIG_DFL)
                raise(SIGINT)
            }
            FileHandle.standardError.write(
                Data("\nstopping at the next chunk boundary (Ctrl-C again to abort)…\n".utf8)
            )
        }
        source.resume()
        self.source = source
    }
}
