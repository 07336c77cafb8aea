import Dispatch
import Foundation
import Ingest
import PosixSupport
import Registry
import Synchronization
import TestClocks
import Testing

@testable import Console

@Suite struct ConsoleSignInTests {
    let hasher = ConsolePasswordHasher(logN: 10, parallelism: 1)

    /// Monotonic time for the per-address buckets, moved by hand.
    final class Uptime: Sendable {
        private let value = Mutex<Duration>(.seconds(1000))
        func now() -> Duration { value.withLock { $0 } }
        func advance(_ by: Duration) { value.withLock { $0 += by } }
    }

    func setUp(
        kdf: BoundedWorkQueue = BoundedWorkQueue(name: "test-kdf", threads: 1, capacity: 4),
        perAddressBurst: Int = 1000,
        uptime: Uptime = Uptime()
    ) throws -> (ConsoleSignIn, ManualWallClock, Registry) {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let (registry, _) = try temporaryRegistry(clock: clock)
        try registry.console.addOperator(name: "ana", role: .admin, passwordHash: try hasher.hash("right password"))
        let signIn = ConsoleSignIn(
            registry: registry,
            hasher: hasher,
            lockAfter: 5,
            lockFor: .seconds(900),
            clock: clock,
            kdf: kdf,
            perAddress: TokenBucketRateLimiter(
                requestsPerSecond: 1.0 / 6,
                burst: perAddressBurst,
                maxKeys: 64,
                now: uptime.now
            )
        )
        return (signIn, clock, registry)
    }

    @Test func theRightPasswordSignsInAndIsAudited() async throws {
        let (signIn, _, registry) = try setUp()
        guard
            case .signedIn(let found) = try await signIn.attempt(
                name: "ana",
                password: "right password",
                clientAddress: "192.0.2.7:5000"
            )
        else {
            Issue.record("not signed in")
            return
        }
        #expect(found.role == .admin)
        let trail = try registry.console.audit()
        #expect(trail.first?.event == "signin")
        #expect(trail.first?.operator == "ana")
        #expect(trail.first?.clientAddress == "192.0.2.7:5000")
    }

    @Test func aWrongPasswordAndAnUnknownNameAreRefusedAlike() async throws {
        let (signIn, _, registry) = try setUp()
        #expect(try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") == .refused)
        #expect(try await signIn.attempt(name: "bob", password: "wrong", clientAddress: "a") == .refused)
        #expect(try registry.console.audit().map(\.event) == ["signin_refused", "signin_refused"])
    }

    @Test func fiveRefusalsInARowLockEvenTheRightPasswordOutUntilTheLockEnds() async throws {
        let (signIn, clock, registry) = try setUp()
        for _ in 0..<4 {
            #expect(try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") == .refused)
        }
        guard case .locked(let until) = try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a")
        else {
            Issue.record("the fifth refusal did not lock")
            return
        }
        #expect(until == clock.now().addingTimeInterval(900))
        #expect(
            try await signIn.attempt(name: "ana", password: "right password", clientAddress: "a")
                == .locked(until: until)
        )
        clock.advance(by: 899)
        #expect(
            try await signIn.attempt(name: "ana", password: "right password", clientAddress: "a")
                == .locked(until: until)
        )
        clock.advance(by: 1)
        guard case .signedIn = try await signIn.attempt(name: "ana", password: "right password", clientAddress: "a")
        else {
            Issue.record("still locked after the lock ended")
            return
        }
        #expect(try registry.console.findOperator(named: "ana")?.failedAttempts == 0)
        #expect(try registry.console.audit().contains { $0.event == "lockout" })
    }

    @Test func aSuccessStartsTheCountOfRefusalsAgain() async throws {
        let (signIn, _, _) = try setUp()
        for _ in 0..<4 { _ = try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") }
        _ = try await signIn.attempt(name: "ana", password: "right password", clientAddress: "a")
        for _ in 0..<4 {
            #expect(try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") == .refused)
        }
    }

    @Test func unlockingLiftsTheLock() async throws {
        let (signIn, _, registry) = try setUp()
        for _ in 0..<5 { _ = try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") }
        #expect(try registry.console.unlockOperator(named: "ana"))
        guard case .signedIn = try await signIn.attempt(name: "ana", password: "right password", clientAddress: "a")
        else {
            Issue.record("still locked after unlock")
            return
        }
    }

    @Test("a lock-out holds for the address that earned it: the operator still signs in from elsewhere")
    func aLockOutIsPerAddress() async throws {
        let (signIn, _, _) = try setUp()
        for _ in 0..<5 { _ = try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "198.51.100.9:1") }
        guard case .locked = try await signIn.attempt(name: "ana", password: "x", clientAddress: "198.51.100.9:2")
        else {
            Issue.record("the guessing address was not locked")
            return
        }
        guard
            case .signedIn = try await signIn.attempt(
                name: "ana",
                password: "right password",
                clientAddress: "192.0.2.7:5000"
            )
        else {
            Issue.record("someone elsewhere locked ana out")
            return
        }
    }

    @Test("an unknown name locks exactly as a known one: the answers do not say which names exist")
    func unknownNamesLockAlike() async throws {
        let (signIn, clock, _) = try setUp()
        var known: [ConsoleSignIn.Outcome] = []
        var unknown: [ConsoleSignIn.Outcome] = []
        for _ in 0..<6 {
            known.append(try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a"))
            unknown.append(try await signIn.attempt(name: "zed", password: "wrong", clientAddress: "a"))
        }
        #expect(known == unknown)
        #expect(known.last == .locked(until: clock.now().addingTimeInterval(900)))
    }

    @Test("a locked attempt answers without a key derivation; a checked one takes one")
    func aLockedAttemptDerivesNothing() async throws {
        let kdf = BoundedWorkQueue(name: "test-kdf", threads: 1, capacity: 4)
        let (signIn, _, _) = try setUp(kdf: kdf)
        for _ in 0..<5 { _ = try await signIn.attempt(name: "zed", password: "wrong", clientAddress: "a") }
        #expect(kdf.completed == 5)
        guard case .locked = try await signIn.attempt(name: "zed", password: "wrong", clientAddress: "a") else {
            Issue.record("not locked")
            return
        }
        #expect(kdf.completed == 5)
    }

    @Test("after a lock ends, each further refusal locks twice as long as the one before")
    func locksGrowAfterEachFurtherRefusal() async throws {
        let (signIn, clock, _) = try setUp()
        for _ in 0..<5 { _ = try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") }
        clock.advance(by: 900)
        #expect(
            try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a")
                == .locked(until: clock.now().addingTimeInterval(1800))
        )
        clock.advance(by: 1800)
        #expect(
            try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a")
                == .locked(until: clock.now().addingTimeInterval(3600))
        )
    }

    @Test("past its burst, an address is throttled before anything is checked or written")
    func perAddressThrottle() async throws {
        let uptime = Uptime()
        let kdf = BoundedWorkQueue(name: "test-kdf", threads: 1, capacity: 4)
        let (signIn, _, registry) = try setUp(kdf: kdf, perAddressBurst: 3, uptime: uptime)
        for _ in 0..<3 {
            #expect(try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "192.0.2.1:1") == .refused)
        }
        guard
            case .throttled(let wait) = try await signIn.attempt(
                name: "ana",
                password: "right password",
                clientAddress: "192.0.2.1:2"
            )
        else {
            Issue.record("the fourth attempt from one address was not throttled")
            return
        }
        #expect(wait == .seconds(6))
        #expect(kdf.completed == 3)
        #expect(try registry.console.audit().count == 3)
        // Another address is not held back; the first one is let in again once its bucket refills.
        #expect(try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "192.0.2.2:1") == .refused)
        uptime.advance(.seconds(6))
        guard
            case .signedIn = try await signIn.attempt(
                name: "ana",
                password: "right password",
                clientAddress: "192.0.2.1:3"
            )
        else {
            Issue.record("the address stayed throttled after its bucket refilled")
            return
        }
    }

    @Test("when every derivation thread is busy and the line is full, a sign-in is throttled at once")
    func aFullDerivationQueueThrottles() async throws {
        let kdf = BoundedWorkQueue(name: "test-kdf", threads: 1, capacity: 0)
        let (signIn, _, _) = try setUp(kdf: kdf)
        let gate = DispatchSemaphore(value: 0)
        let holding = Task { try await kdf.run { gate.wait() } }
        while kdf.load.running == 0 { await Task.yield() }
        let outcome = try await signIn.attempt(name: "ana", password: "right password", clientAddress: "a")
        gate.signal()
        try await holding.value
        #expect(outcome == .throttled(retryAfter: .seconds(2)))
    }

    @Test("the address an attempt is counted under drops the port")
    func clientAddressWithoutPort() {
        #expect(ConsoleSignIn.client(of: "192.0.2.7:5000") == "192.0.2.7")
        #expect(ConsoleSignIn.client(of: "[2001:db8::1]:443") == "2001:db8::1")
        #expect(ConsoleSignIn.client(of: "2001:db8::1") == "2001:db8::1")
        #expect(ConsoleSignIn.client(of: "192.0.2.7") == "192.0.2.7")
    }

    @Test("refused sign-ins age out of the trail after the retention; every other row stays")
    func refusalsAgeOut() async throws {
        let (signIn, clock, registry) = try setUp()
        _ = try await signIn.attempt(name: "ana", password: "wrong", clientAddress: "a")
        _ = try await signIn.attempt(name: "ana", password: "right password", clientAddress: "a")
        clock.advance(by: 31 * 86400)
        #expect(
            try registry.console.pruneSignInRefusals(
                trailOlderThan: .seconds(30 * 86400),
                countsOlderThan: .seconds(86400)
            ) == 1
        )
        #expect(try registry.console.audit().map(\.event) == ["signin"])
    }
}
