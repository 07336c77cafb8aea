import Testing

@testable import CloudServer

/// The replay cache's queue (the fast path every request takes twice) against the plain rule it
/// keeps (the full path): a key is refused when it was recorded within the window before, whatever
/// the order of keys and of (monotonic) times.
@Suite("Cloud server: replay cache")
struct ReplayCacheTests {
    @Test("The queue answers as the plain rule on 50,000 inserts of repeating keys, and lets old keys go")
    func queueAnswersAsThePlainRule() {
        var generator = CloudServerRoutesTests.SplitMix64(seed: 7)
        let window: Int64 = 1000
        let cache = ReplayCache(windowMillis: window)
        var recorded: [String: Int64] = [:]
        var now: Int64 = 0
        for _ in 0..<50_000 {
            now += Int64(generator.next() % 7)
            let key = "k\(generator.next() % 3000)"
            let expected: Bool
            if let at = recorded[key], now - at <= window {
                expected = false
            } else {
                expected = true
                recorded[key] = now
            }
            #expect(cache.insert(key, now: now) == expected, "key \(key) at \(now)")
        }
        // Everything recorded more than a window ago is gone.
        #expect(cache.insert("fresh", now: now + window + 1))
        #expect(cache.count == 1)
    }
}
