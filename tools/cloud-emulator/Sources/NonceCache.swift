import Foundation
import Synchronization

/// Nonces seen within the clock-skew window: a captured request replayed verbatim is refused.
final class NonceCache: Sendable {
    private let seen = Mutex<[String: Int64]>([:])
    private let window: Int64

    init(windowMillis: Int64) { self.window = windowMillis }

    /// False when `nonce` was already used within the window.
    func insert(_ nonce: String, now: Int64) -> Bool {
        seen.withLock { seen in
            if seen.count > 10_000 {
                seen = seen.filter { now - $0.value <= window }
            }
            if let at = seen[nonce], now - at <= window { return false }
            seen[nonce] = now
            return true
        }
    }
}
