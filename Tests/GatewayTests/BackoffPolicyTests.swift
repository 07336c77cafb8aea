import Gateway
import Testing

@Suite struct BackoffPolicyTests {
    @Test("delays double from the initial value up to the cap")
    func doublesUpToTheCap() {
        let policy = BackoffPolicy(initial: .seconds(1), cap: .seconds(60))
        let delays = (1...9).map { policy.delay(afterFailures: $0, random: 0.5) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
    }

    @Test("jitter only shortens a delay, by at most its share")
    func jitterStaysWithinItsShare() {
        let policy = BackoffPolicy(initial: .seconds(1), cap: .seconds(60), jitter: 0.2)
        #expect(policy.delay(afterFailures: 3, random: 0) == .seconds(4))
        #expect(policy.delay(afterFailures: 3, random: 0.5) == .milliseconds(3600))
        #expect(policy.delay(afterFailures: 3, random: 0.999_999) > .milliseconds(3200))
        for _ in 0..<100 {
            let delay = policy.delay(afterFailures: 10)
            #expect(delay <= .seconds(60) && delay >= .seconds(48))
        }
    }

    @Test("nonsense settings are clamped: a cap below the initial delay, jitter outside 0…1")
    func clampsSettings() {
        let policy = BackoffPolicy(initial: .seconds(5), cap: .seconds(1), jitter: 3)
        #expect(policy.cap == .seconds(5) && policy.jitter == 1)
        #expect(policy.delay(afterFailures: 1, random: 0) == .seconds(5))
        #expect(policy.delay(afterFailures: 1000, random: 0) == .seconds(5))
    }

    @Test("the configuration's defaults: 1 s initial, 60 s cap, 20 % jitter, 120 s registration timeout")
    func configurationDefaults() {
        let configuration = GatewayConfiguration()
        #expect(configuration.backoff == BackoffPolicy(initial: .seconds(1), cap: .seconds(60), jitter: 0.2))
        #expect(configuration.registrationTimeout == .seconds(120))
        #expect(configuration.signalPollInterval == .seconds(60))
        #expect(configuration.productID == nil)
    }
}
