import Foundation
import Registry
import Testing

@testable import Console

@Suite struct ConsoleSessionsTests {
    let someone = ConsoleOperator(name: "ana", role: .operator, passwordHash: "x", createdAt: Date())

    @Test func aSessionIsFoundByItsCookieAndCarriesItsCSRFToken() {
        let uptime = TestUptime()
        let sessions = ConsoleSessions(now: uptime.now)
        let (cookie, session) = sessions.start(operator: someone, clientAddress: "10.0.0.5:4000")
        #expect(cookie.count == 43)
        #expect(sessions.session(for: cookie)?.operatorName == "ana")
        #expect(sessions.session(for: cookie)?.csrfToken == session.csrfToken)
        #expect(sessions.session(for: cookie + "x") == nil)
        #expect(sessions.session(for: nil) == nil)
    }

    @Test func anIdleSessionEndsAfterThirtyMinutesAndAUsedOneDoesNot() {
        let uptime = TestUptime()
        let sessions = ConsoleSessions(now: uptime.now)
        let (idle, _) = sessions.start(operator: someone, clientAddress: "a")
        let (busy, _) = sessions.start(operator: someone, clientAddress: "b")
        for _ in 0..<3 {
            uptime.advance(.seconds(20 * 60))
            #expect(sessions.session(for: busy) != nil)
        }
        #expect(sessions.session(for: idle) == nil)
    }

    @Test func everySessionEndsTwelveHoursAfterSignIn() {
        let uptime = TestUptime()
        let sessions = ConsoleSessions(now: uptime.now)
        let (cookie, _) = sessions.start(operator: someone, clientAddress: "a")
        for _ in 0..<((12 * 60) / 20 - 1) {
            uptime.advance(.seconds(20 * 60))
            #expect(sessions.session(for: cookie) != nil)
        }
        uptime.advance(.seconds(20 * 60))
        #expect(sessions.session(for: cookie) == nil)
    }

    @Test func signingOutEndsTheSessionAndOnlyIt() {
        let sessions = ConsoleSessions(now: TestUptime().now)
        let (mine, _) = sessions.start(operator: someone, clientAddress: "a")
        let (other, _) = sessions.start(operator: someone, clientAddress: "b")
        sessions.end(mine)
        #expect(sessions.session(for: mine) == nil)
        #expect(sessions.session(for: other) != nil)
    }

    @Test func theCSRFCheckAcceptsOnlyTheSessionsToken() {
        let sessions = ConsoleSessions(now: TestUptime().now)
        let (_, session) = sessions.start(operator: someone, clientAddress: "a")
        let (_, other) = sessions.start(operator: someone, clientAddress: "b")
        #expect(session.acceptsCSRF(session.csrfToken))
        #expect(!session.acceptsCSRF(other.csrfToken))
        #expect(!session.acceptsCSRF(""))
        #expect(!session.acceptsCSRF(nil))
        #expect(!session.acceptsCSRF(String(session.csrfToken.dropLast())))
    }
}
