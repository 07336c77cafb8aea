import Foundation
import GRDB
import Registry
import TestClocks
import Testing

@testable import Console

@Suite struct ConsoleSessionsTests {
    /// A store with operators `ana` (operator) and `bob` (admin), and sessions on the same clock.
    func setUp() throws -> (ConsoleSessions, ManualWallClock, Registry, String) {
        let clock = ManualWallClock()
        let (registry, directory) = try temporaryRegistry(clock: clock)
        try registry.console.addOperator(name: "ana", role: .operator, passwordHash: "$scrypt$ln=1,r=1,p=1$x$y")
        try registry.console.addOperator(name: "bob", role: .admin, passwordHash: "$scrypt$ln=1,r=1,p=1$x$y")
        return (ConsoleSessions(registry: registry, clock: clock), clock, registry, directory)
    }

    func ana(_ registry: Registry) throws -> ConsoleOperator {
        try #require(try registry.console.findOperator(named: "ana"))
    }

    @Test func aSessionIsFoundByItsCookieAndCarriesItsCSRFToken() throws {
        let (sessions, _, registry, _) = try setUp()
        let (cookie, session) = try sessions.start(operator: ana(registry), clientAddress: "10.0.0.5:4000")
        #expect(cookie.count == 43)
        #expect(try sessions.session(for: cookie)?.operatorName == "ana")
        #expect(try sessions.session(for: cookie)?.csrfToken == session.csrfToken)
        #expect(try sessions.session(for: cookie + "x") == nil)
        #expect(try sessions.session(for: nil) == nil)
    }

    @Test func anIdleSessionEndsAfterThirtyMinutesAndAUsedOneDoesNot() throws {
        let (sessions, clock, registry, _) = try setUp()
        let (idle, _) = try sessions.start(operator: ana(registry), clientAddress: "a")
        let (busy, _) = try sessions.start(operator: ana(registry), clientAddress: "b")
        for _ in 0..<3 {
            clock.advance(by: 20 * 60)
            #expect(try sessions.session(for: busy) != nil)
        }
        #expect(try sessions.session(for: idle) == nil)
    }

    @Test func everySessionEndsTwelveHoursAfterSignIn() throws {
        let (sessions, clock, registry, _) = try setUp()
        let (cookie, _) = try sessions.start(operator: ana(registry), clientAddress: "a")
        for _ in 0..<((12 * 60) / 20 - 1) {
            clock.advance(by: 20 * 60)
            #expect(try sessions.session(for: cookie) != nil)
        }
        clock.advance(by: 20 * 60)
        #expect(try sessions.session(for: cookie) == nil)
    }

    @Test func signingOutEndsTheSessionAndOnlyIt() throws {
        let (sessions, _, registry, _) = try setUp()
        let (mine, _) = try sessions.start(operator: ana(registry), clientAddress: "a")
        let (other, _) = try sessions.start(operator: ana(registry), clientAddress: "b")
        try sessions.end(mine)
        #expect(try sessions.session(for: mine) == nil)
        #expect(try sessions.session(for: other) != nil)
    }

    @Test func theCSRFCheckAcceptsOnlyTheSessionsToken() throws {
        let (sessions, _, registry, _) = try setUp()
        let (_, session) = try sessions.start(operator: ana(registry), clientAddress: "a")
        let (_, other) = try sessions.start(operator: ana(registry), clientAddress: "b")
        #expect(session.acceptsCSRF(session.csrfToken))
        #expect(!session.acceptsCSRF(other.csrfToken))
        #expect(!session.acceptsCSRF(""))
        #expect(!session.acceptsCSRF(nil))
        #expect(!session.acceptsCSRF(String(session.csrfToken.dropLast())))
    }

    @Test("a session outlives the serving process: a new one on the same store finds it")
    func aSessionSurvivesARestart() throws {
        let (sessions, clock, registry, _) = try setUp()
        let (cookie, session) = try sessions.start(operator: ana(registry), clientAddress: "a")
        let reopened = try Registry(path: registry.path, clock: clock)
        let found = try ConsoleSessions(registry: reopened, clock: clock).session(for: cookie)
        #expect(found?.operatorName == "ana")
        #expect(found?.csrfToken == session.csrfToken)
    }

    @Test("removing an operator from another process ends their sessions at once, and only theirs")
    func removingAnOperatorEndsTheirSessions() throws {
        let (sessions, clock, registry, _) = try setUp()
        let (anas, _) = try sessions.start(operator: ana(registry), clientAddress: "a")
        let bob = try #require(try registry.console.findOperator(named: "bob"))
        let (bobs, _) = try sessions.start(operator: bob, clientAddress: "b")
        // `nbgw operators remove ana` opens the store on a connection of its own.
        let cli = try Registry(path: registry.path, clock: clock)
        #expect(try cli.console.removeOperator(named: "ana"))
        #expect(try sessions.session(for: anas) == nil)
        #expect(try sessions.session(for: bobs)?.operatorName == "bob")
    }

    @Test("a new password or a new role ends the operator's sessions; an unlock does not")
    func credentialChangesEndSessions() throws {
        let (sessions, clock, registry, _) = try setUp()
        let cli = try Registry(path: registry.path, clock: clock)
        let (first, _) = try sessions.start(operator: ana(registry), clientAddress: "a")
        try cli.console.unlockOperator(named: "ana")
        #expect(try sessions.session(for: first) != nil)
        try cli.console.addOperator(
            name: "ana",
            role: .operator,
            passwordHash: "$scrypt$ln=1,r=1,p=1$x$new",
            replace: true
        )
        #expect(try sessions.session(for: first) == nil)
        let (second, _) = try sessions.start(operator: ana(registry), clientAddress: "a")
        #expect(try sessions.session(for: second)?.role == .operator)
        // A role changed by hand in the store (a member of the group with sqlite3) ends them too:
        // the rule is the schema's, not the CLI's.
        try DatabaseQueue(path: registry.path).write { db in
            try db.execute(sql: "UPDATE console_operator SET role = 'admin' WHERE name = 'ana'")
        }
        #expect(try sessions.session(for: second) == nil)
    }

    @Test("the store keeps a digest of the cookie, never the cookie")
    func theCookieIsNotStored() throws {
        let (sessions, _, registry, _) = try setUp()
        let (cookie, _) = try sessions.start(operator: ana(registry), clientAddress: "a")
        let digests = try DatabaseQueue(path: registry.path).read { db in
            try String.fetchAll(db, sql: "SELECT digest FROM console_session")
        }
        #expect(digests == [ConsoleSecret.digest(cookie)])
        let bytes =
            try Data(contentsOf: URL(fileURLWithPath: registry.path))
            + ((try? Data(contentsOf: URL(fileURLWithPath: registry.path + "-wal"))) ?? Data())
        #expect(bytes.range(of: Data(cookie.utf8)) == nil)
    }

    @Test("a request writes the session's last use at most once a minute")
    func lastUseIsWrittenAtMostOnceAMinute() throws {
        let (sessions, clock, registry, _) = try setUp()
        let (cookie, _) = try sessions.start(operator: ana(registry), clientAddress: "a")
        let started = try #require(try sessions.session(for: cookie)?.lastSeenAt)
        clock.advance(by: 59)
        #expect(try sessions.session(for: cookie)?.lastSeenAt == started)
        clock.advance(by: 1)
        _ = try sessions.session(for: cookie)
        #expect(try sessions.session(for: cookie)?.lastSeenAt == started.addingTimeInterval(60))
    }
}
