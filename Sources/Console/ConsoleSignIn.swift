import Foundation
import Logging
import NBGWCore
import Registry
import Synchronization

/// Checks a name and password, counts refusals and locks an operator out after too many in a row
/// (the counter and the lock live in the store, so a restart does not lift them). Every attempt
/// leaves a row in the console's trail with the name tried and the client's address.
public struct ConsoleSignIn: Sendable {
    /// What an attempt came to.
    public enum Outcome: Sendable, Equatable {
        case signedIn(ConsoleOperator)
        /// Wrong name or password (the same words for both: the page does not say which names exist).
        case refused
        /// Locked until the date (now, or by an earlier run of refusals).
        case locked(until: Date)
    }

    public let registry: Registry
    public let hasher: ConsolePasswordHasher
    /// Refusals in a row that lock the operator. Why 5: enough for typos, and with a 15-minute
    /// lock it allows at most 480 guesses a day per name.
    public var lockAfter: Int
    public var lockFor: Duration
    /// The same clock the registry stamps `locked_until` with.
    public var clock: any WallClock

    /// A hash of no one's password, verified when the name is unknown so that an unknown name
    /// costs the same time as a wrong password. Made at the first unknown name, not at start: one
    /// derivation is 0.2-0.6 s, and the daemon should not wait for it.
    private let decoy = Decoy()

    final class Decoy: Sendable {
        private let value = Mutex<String?>(nil)

        func hash(_ hasher: ConsolePasswordHasher) -> String {
            value.withLock { value in
                if let value { return value }
                let made = (try? hasher.hash(ConsoleSecret.token())) ?? ""
                value = made
                return made
            }
        }
    }

    public init(
        registry: Registry,
        hasher: ConsolePasswordHasher = .standard,
        lockAfter: Int = 5,
        lockFor: Duration = .seconds(15 * 60),
        clock: any WallClock = SystemWallClock()
    ) {
        self.registry = registry
        self.hasher = hasher
        self.lockAfter = lockAfter
        self.lockFor = lockFor
        self.clock = clock
    }

    /// One sign-in attempt from `clientAddress`.
    public func attempt(name: String, password: String, clientAddress: String) throws(NBGWError) -> Outcome {
        let who = name.isEmpty ? "(empty)" : String(name.prefix(64))
        guard password.utf8.count <= ConsolePasswordHasher.maximumLength,
            let found = try registry.console.findOperator(named: name)
        else {
            _ = hasher.verify(password, against: decoy.hash(hasher))
            try registry.console.recordAction(
                "signin_refused",
                operator: who,
                clientAddress: clientAddress,
                code: ErrorCode.unauthenticated.rawValue,
                detail: "unknown operator or over-long password"
            )
            return .refused
        }
        if let until = found.lockedUntil, until > clock.now() {
            try registry.console.recordAction(
                "signin_locked",
                operator: who,
                clientAddress: clientAddress,
                code: ErrorCode.rateLimited.rawValue,
                detail: "locked until \(until.formatted(.iso8601))"
            )
            return .locked(until: until)
        }
        guard hasher.verify(password, against: found.passwordHash) else {
            let after = try registry.console.recordSignInFailure(name: name, limit: lockAfter, lockFor: lockFor)
            if let after, let until = after.lockedUntil, until > clock.now() {
                try registry.console.recordAction(
                    "lockout",
                    operator: who,
                    clientAddress: clientAddress,
                    code: ErrorCode.rateLimited.rawValue,
                    detail:
                        "\(after.failedAttempts) refused sign-ins in a row; locked until \(until.formatted(.iso8601))"
                )
                return .locked(until: until)
            }
            try registry.console.recordAction(
                "signin_refused",
                operator: who,
                clientAddress: clientAddress,
                code: ErrorCode.unauthenticated.rawValue,
                detail: "wrong password (\(after?.failedAttempts ?? 0) in a row)"
            )
            return .refused
        }
        try registry.console.recordSignIn(name: name)
        try registry.console.recordAction("signin", operator: found.name, clientAddress: clientAddress, code: "OK")
        return .signedIn(found)
    }
}
