import Foundation
import Registry
import Synchronization

/// The console's sessions, in the serving process's memory: a restart signs everyone out (which
/// is also what a lost session table should do). A session ends at sign-out, after
/// ``idleTimeout`` without a request, or ``absoluteTimeout`` after sign-in, whichever comes first.
///
/// Keys are SHA-256 digests of the cookie's value; the cookie's value is never stored.
public final class ConsoleSessions: Sendable {
    /// Why 30 minutes: a line worker's pause between trays; why 12 hours: one shift.
    public let idleTimeout: Duration
    public let absoluteTimeout: Duration
    /// Monotonic time, injected so tests move it.
    public let now: @Sendable () -> Duration
    private let table = Mutex<[String: ConsoleSession]>([:])

    public init(
        idleTimeout: Duration = .seconds(30 * 60),
        absoluteTimeout: Duration = .seconds(12 * 3600),
        now: @escaping @Sendable () -> Duration
    ) {
        self.idleTimeout = idleTimeout
        self.absoluteTimeout = absoluteTimeout
        self.now = now
    }

    /// Starts a session for `operator`; returns the cookie value and the session.
    public func start(operator: ConsoleOperator, clientAddress: String) -> (cookie: String, session: ConsoleSession) {
        let cookie = ConsoleSecret.token()
        let instant = now()
        let session = ConsoleSession(
            operatorName: `operator`.name,
            role: `operator`.role,
            csrfToken: ConsoleSecret.token(),
            clientAddress: clientAddress,
            createdAt: instant,
            lastSeenAt: instant
        )
        table.withLock { sessions in
            sessions = sessions.filter { !expired($0.value, at: instant) }
            sessions[ConsoleSecret.digest(cookie)] = session
        }
        return (cookie, session)
    }

    /// The live session for a cookie value (and its idle timer restarts), or nil.
    public func session(for cookie: String?) -> ConsoleSession? {
        guard let cookie, !cookie.isEmpty else { return nil }
        let key = ConsoleSecret.digest(cookie)
        let instant = now()
        return table.withLock { sessions in
            guard var session = sessions[key] else { return nil }
            if expired(session, at: instant) {
                sessions[key] = nil
                return nil
            }
            session.lastSeenAt = instant
            sessions[key] = session
            return session
        }
    }

    /// Ends the session of a cookie value (sign-out).
    public func end(_ cookie: String?) {
        guard let cookie else { return }
        let key = ConsoleSecret.digest(cookie)
        _ = table.withLock { $0.removeValue(forKey: key) }
    }

    /// Ends every session of `name` (their password was replaced, or they were removed).
    public func end(operator name: String) {
        table.withLock { sessions in sessions = sessions.filter { $0.value.operatorName != name } }
    }

    public var count: Int { table.withLock { $0.count } }

    private func expired(_ session: ConsoleSession, at instant: Duration) -> Bool {
        instant - session.lastSeenAt >= idleTimeout || instant - session.createdAt >= absoluteTimeout
    }
}
