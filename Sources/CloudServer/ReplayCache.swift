import Foundation
import Synchronization

/// What was seen within the clock-skew window, so that a captured request replayed verbatim is
/// refused: a request's nonce when it sends one, and its signature always. Tuya's SDKs send no
/// nonce (their gateways treat it as optional), and a signature covers the client, the token, the
/// millisecond `t`, the method, the body's digest and the URL: the same signature twice within the
/// window is the same request sent twice.
public final class ReplayCache: Sendable {
    private let seen = Mutex<[String: Int64]>([:])
    private let window: Int64

    public init(windowMillis: Int64) { self.window = windowMillis }

    /// False when `key` was already used within the window; records it otherwise.
    public func insert(_ key: String, now: Int64) -> Bool {
        seen.withLock { seen in
            if seen.count > 10_000 {
                seen = seen.filter { now - $0.value <= window }
            }
            if let at = seen[key], now - at <= window { return false }
            seen[key] = now
            return true
        }
    }
}
