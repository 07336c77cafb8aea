import Dispatch
import Foundation

/// Set by SIGINT (Ctrl-C); a batch polls it between chunks and stops at a committed boundary.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var source: (any DispatchSourceSignal)?

    var isSet: Bool { lock.withLock { stopped } }

    /// Routes SIGINT to this flag instead of killing the process. A second Ctrl-C still kills it.
    func install() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in
            guard let self else { return }
            let again = self.lock.withLock {
                defer { self.stopped = true }
                return self.stopped
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
