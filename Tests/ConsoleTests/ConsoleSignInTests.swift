import Foundation
import Registry
import TestClocks
import Testing

@testable import Console

@Suite struct ConsoleSignInTests {
    let hasher = ConsolePasswordHasher(logN: 10, parallelism: 1)

    func setUp() throws -> (ConsoleSignIn, ManualWallClock, Registry) {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let (registry, _) = try temporaryRegistry(clock: clock)
        try registry.console.addOperator(name: "ana", role: .admin, passwordHash: try hasher.hash("right password"))
        let signIn = ConsoleSignIn(
            registry: registry,
            hasher: hasher,
            lockAfter: 5,
            lockFor: .seconds(900),
            clock: clock
        )
        return (signIn, clock, registry)
    }

    @Test func theRightPasswordSignsInAndIsAudited() throws {
        let (signIn, _, registry) = try setUp()
        guard
            case .signedIn(let found) = try signIn.attempt(
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

    @Test func aWrongPasswordAndAnUnknownNameAreRefusedAlike() throws {
        let (signIn, _, registry) = try setUp()
        #expect(try signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") == .refused)
        #expect(try signIn.attempt(name: "bob", password: "wrong", clientAddress: "a") == .refused)
        #expect(try registry.console.audit().map(\.event) == ["signin_refused", "signin_refused"])
    }

    @Test func fiveRefusalsInARowLockEvenTheRightPasswordOutUntilTheLockEnds() throws {
        let (signIn, clock, registry) = try setUp()
        for _ in 0..<4 {
            #expect(try signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") == .refused)
        }
        guard case .locked(let until) = try signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") else {
            Issue.record("the fifth refusal did not lock")
            return
        }
        #expect(until == clock.now().addingTimeInterval(900))
        #expect(
            try signIn.attempt(name: "ana", password: "right password", clientAddress: "a") == .locked(until: until)
        )
        clock.advance(by: 899)
        #expect(
            try signIn.attempt(name: "ana", password: "right password", clientAddress: "a") == .locked(until: until)
        )
        clock.advance(by: 1)
        guard case .signedIn = try signIn.attempt(name: "ana", password: "right password", clientAddress: "a") else {
            Issue.record("still locked after the lock ended")
            return
        }
        #expect(try registry.console.findOperator(named: "ana")?.failedAttempts == 0)
        #expect(try registry.console.audit().contains { $0.event == "lockout" })
    }

    @Test func aSuccessStartsTheCountOfRefusalsAgain() throws {
        let (signIn, _, _) = try setUp()
        for _ in 0..<4 { _ = try signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") }
        _ = try signIn.attempt(name: "ana", password: "right password", clientAddress: "a")
        for _ in 0..<4 {
            #expect(try signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") == .refused)
        }
    }

    @Test func unlockingLiftsTheLock() throws {
        let (signIn, _, registry) = try setUp()
        for _ in 0..<5 { _ = try signIn.attempt(name: "ana", password: "wrong", clientAddress: "a") }
        #expect(try registry.console.unlockOperator(named: "ana"))
        guard case .signedIn = try signIn.attempt(name: "ana", password: "right password", clientAddress: "a") else {
            Issue.record("still locked after unlock")
            return
        }
    }
}
