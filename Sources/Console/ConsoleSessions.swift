import Foundation
import Logging
import NBGWCore
import Registry

/// The console's sessions, kept in the store (migration v13): a daemon restart signs nobody out,
/// and whatever changes an operator (the console, `nbgw operators remove` or `add --replace` from
/// another process) ends their sessions in the same transaction, through the schema's triggers.
/// A session ends at sign-out, after ``idleTimeout`` without a request, or ``absoluteTimeout``
/// after sign-in, whichever comes first.
///
/// Every request reads its session and its operator's current role (one indexed read); the
/// last-seen time is written at most once per ``touchInterval``. Keys are SHA-256 digests of the
/// cookie's value; the value itself is never stored.
public final class ConsoleSessions: Sendable {
    public let registry: Registry
    /// Why 30 minutes: a line worker's pause between trays; why 12 hours: one shift.
    public let idleTimeout: Duration
    public let absoluteTimeout: Duration
    /// Why once a minute: a page polls every few seconds, and a write per poll would queue behind
    /// every bind; the idle end is then exact to the minute.
    public let touchInterval: Duration
    /// The registry's clock (tests move both together).
    public let clock: any WallClock
    let logger: Logger

    public init(
        registry: Registry,
        idleTimeout: Duration = .seconds(30 * 60),
        absoluteTimeout: Duration = .seconds(12 * 3600),
        touchInterval: Duration = .seconds(60),
        clock: any WallClock = SystemWallClock(),
        logger: Logger = Logger(label: "nbgw.console", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.registry = registry
        self.idleTimeout = idleTimeout
        self.absoluteTimeout = absoluteTimeout
        self.touchInterval = touchInterval
        self.clock = clock
        self.logger = logger
    }

    /// Starts a session for `operator`; returns the cookie value and the session.
    public func start(
        operator: ConsoleOperator,
        clientAddress: String
    ) throws(NBGWError) -> (cookie: String, session: ConsoleSession) {
        let cookie = ConsoleSecret.token()
        let record = try registry.console.startSession(
            digest: ConsoleSecret.digest(cookie),
            operatorName: `operator`.name,
            csrfToken: ConsoleSecret.token(),
            clientAddress: clientAddress,
            lifetime: absoluteTimeout
        )
        return (cookie, ConsoleSession(record))
    }

    /// The live session for a cookie value, or nil (none, ended, or its operator was removed or
    /// changed since).
    public func session(for cookie: String?) throws(NBGWError) -> ConsoleSession? {
        guard let cookie, !cookie.isEmpty, cookie.utf8.count <= 256 else { return nil }
        let digest = ConsoleSecret.digest(cookie)
        guard let record = try registry.console.session(digest: digest, idleTimeout: idleTimeout) else { return nil }
        if record.lastSeenAt.addingTimeInterval(touchInterval.inSeconds) <= clock.now() {
            do {
                try registry.console.touchSession(digest: digest)
            } catch {
                // The session stays valid; only its idle end is measured from the last recorded use.
                logger.warning("could not record a console session's use", metadata: ["error": "\(error.message)"])
            }
        }
        return ConsoleSession(record)
    }

    /// Ends the session of a cookie value (sign-out).
    public func end(_ cookie: String?) throws(NBGWError) {
        guard let cookie, !cookie.isEmpty else { return }
        try registry.console.endSession(digest: ConsoleSecret.digest(cookie))
    }

    /// Ends every session of `name`; returns how many there were.
    @discardableResult
    public func end(operator name: String) throws(NBGWError) -> Int {
        try registry.console.endSessions(operatorName: name)
    }

}
