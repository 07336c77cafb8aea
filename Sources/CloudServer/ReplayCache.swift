import Foundation
import Synchronization

/// What was seen within the clock-skew window, so that a captured request replayed verbatim is
/// refused: a request's nonce when it sends one, and its signature always. Tuya's SDKs send no
/// nonce (their gateways treat it as optional), and a signature covers the client, the token, the
/// millisecond `t`, the method, the body's digest and the URL: the same signature twice within the
/// window is the same request sent twice.
///
/// Entries leave in the order they came, as they age out of the window: each insert costs O(1)
/// however many requests the window holds. Why: the cache it replaces filtered its whole
/// dictionary on every insert once it held 10,000 entries, and a window of 300 s holds that many
/// after 17 s at 300 requests/s: under `tools/bench-cloud.sh` every later request of a node paid a
/// scan of all of them (p99 at 72 binds/s: 211 ms).
public final class ReplayCache: Sendable {
    private struct State {
        var seen: [String: Int64] = [:]
        /// Keys in the order they were recorded, with when; `head` is the oldest still kept.
        var order: [(key: String, at: Int64)] = []
        var head = 0
    }

    private let state = Mutex(State())
    private let window: Int64

    public init(windowMillis: Int64) { self.window = windowMillis }

    /// False when `key` was already used within the window; records it otherwise.
    public func insert(_ key: String, now: Int64) -> Bool {
        state.withLock { state in
            // Entries older than the window, oldest first. A clock that stepped back leaves them
            // a little longer: never shorter than the window.
            while state.head < state.order.count, now - state.order[state.head].at > window {
                let old = state.order[state.head]
                if state.seen[old.key] == old.at { state.seen[old.key] = nil }
                state.head += 1
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            if let at = state.seen[key], now - at <= window { return false }
            state.seen[key] = now
            state.order.append((key, now))
            return true
        }
    }

    /// How many keys are kept (for tests).
    var count: Int { state.withLock { $0.seen.count } }
}
