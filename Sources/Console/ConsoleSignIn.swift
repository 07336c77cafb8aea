import Foundation
import Ingest
import Logging
import NBGWCore
import PosixSupport
import Registry
import Synchronization

/// Checks a name and password, counts refusals per name and client address and locks that pair
/// out after too many in a row (the counts live in the store, so a restart does not lift them).
/// Every attempt that reaches the password check leaves a row in the console's trail with the name
/// tried and the client's address, and a `notice` line in the log (for fail2ban or a journal alert).
///
/// What bounds the cost of sign-ins, in order, before any key derivation:
/// 1. a token bucket per client address (``perAddress``): past it, 429 at once;
/// 2. a lock-out of this name from this address: 429 at once, the same for known and unknown names;
/// 3. the derivation itself runs on ``kdf``, a few threads of its own with a short line: when the
///    line is full, 429 at once. Never on Swift's cooperative pool, which the supervisors, the
///    listeners and the watchdog's heartbeat need (100 concurrent sign-ins on the pool held the
///    watchdog off for 34.6 s).
public struct ConsoleSignIn: Sendable {
    /// What an attempt came to.
    public enum Outcome: Sendable, Equatable {
        case signedIn(ConsoleOperator)
        /// Wrong name or password (the same words for both: the page does not say which names exist).
        case refused
        /// This name is locked for this address until the date (now, or by an earlier run of refusals).
        case locked(until: Date)
        /// Too many attempts from this address, or too many sign-ins at once on the gateway: try
        /// again after the duration. Nothing was checked.
        case throttled(retryAfter: Duration)
    }

    public let registry: Registry
    public let hasher: ConsolePasswordHasher
    /// Refusals in a row (per name and address) that lock the pair. Why 5: enough for typos; with
    /// a 15-minute first lock that doubles at each further refusal, a day allows about 14 guesses
    /// per name and address.
    public var lockAfter: Int
    /// The first lock's length; each further refusal after a lock doubles it, up to a day.
    public var lockFor: Duration
    /// The same clock the registry stamps its rows with.
    public var clock: any WallClock
    /// Where derivations run.
    public let kdf: BoundedWorkQueue
    /// Attempts per client address, before anything else.
    public let perAddress: TokenBucketRateLimiter
    /// Where a locked attempt's trail row is written (no derivation: a queue of its own, so locked
    /// attempts never wait behind derivations, nor take their place). Why 16 waiting: locked
    /// attempts are already bounded per address; beyond that the row is skipped and logged.
    let trail = BoundedWorkQueue(name: "nbgwd-signin", threads: 1, capacity: 16)
    /// How long refused sign-ins stay in the console's trail. Why 30 days: long enough to look
    /// back on a month's attack in the console's trail (the journal keeps its own copy); short
    /// enough that a sustained spray cannot grow the store without bound.
    public var refusalRetention: Duration = .seconds(30 * 86400)
    let logger: Logger
    private let pruned = PruneMark()

    /// When refusals were last aged out: at most once an hour, after a refusal.
    final class PruneMark: Sendable {
        private let last = Mutex<Date?>(nil)

        func due(at now: Date) -> Bool {
            last.withLock { last in
                if let last, now.timeIntervalSince(last) < 3600 { return false }
                last = now
                return true
            }
        }
    }

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

    /// - Parameters:
    ///   - kdf: the derivations' threads. By default one thread and four waiting. Why one: on a
    ///     two-core gateway the other core stays with the daemon whatever arrives; a derivation
    ///     takes 0.2-0.6 s in a release build (docs/console.md, "Security"), so a shift signing in
    ///     at once waits a second or two. Why four: a fifth would wait over two seconds; better a 429
    ///     with `Retry-After` the page shows. Why 10 nice levels below the daemon: a storm of
    ///     sign-ins keeps that thread busy, and the supervisors and binds must still get the CPU first
    ///     (measured by tools/soak/soak.py: binds at p50 2 s behind a busy derivation thread at the
    ///     daemon's own priority on two cores, debug build).
    ///   - perAddress: by default 10 attempts at once per address, then one every 6 s (10 a minute):
    ///     a person mistyping never meets it; one machine guessing gets 10 derivations a minute.
    public init(
        registry: Registry,
        hasher: ConsolePasswordHasher = .standard,
        lockAfter: Int = 5,
        lockFor: Duration = .seconds(15 * 60),
        clock: any WallClock = SystemWallClock(),
        kdf: BoundedWorkQueue = BoundedWorkQueue(name: "nbgwd-kdf", threads: 1, capacity: 4, niceSteps: 10),
        perAddress: TokenBucketRateLimiter = TokenBucketRateLimiter(
            requestsPerSecond: 1.0 / 6,
            burst: 10,
            maxKeys: 4096,
            now: IngestConfiguration.uptime
        ),
        logger: Logger = Logger(label: "nbgw.console", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.registry = registry
        self.hasher = hasher
        self.lockAfter = lockAfter
        self.lockFor = lockFor
        self.clock = clock
        self.kdf = kdf
        self.perAddress = perAddress
        self.logger = logger
    }

    /// The address a client's attempts are counted under: `clientAddress` without its port
    /// (`192.0.2.7:5000` → `192.0.2.7`, `[2001:db8::1]:443` → `2001:db8::1`).
    public static func client(of clientAddress: String) -> String {
        if clientAddress.hasPrefix("["), let end = clientAddress.firstIndex(of: "]") {
            return String(clientAddress[clientAddress.index(after: clientAddress.startIndex)..<end])
        }
        if clientAddress.filter({ $0 == ":" }).count == 1, let colon = clientAddress.lastIndex(of: ":") {
            return String(clientAddress[..<colon])
        }
        return clientAddress
    }

    /// One sign-in attempt from `clientAddress`.
    ///
    /// What runs on the caller's task reads only (the buckets, the lock, the operator's row: WAL
    /// reads never wait for a writer); the derivation and every write the attempt makes (its
    /// counts, its trail) run on ``kdf``'s thread, so a store held by a long batch can slow
    /// sign-ins down but never holds a cooperative thread.
    public func attempt(name: String, password: String, clientAddress: String) async throws(NBGWError) -> Outcome {
        let who = name.isEmpty ? "(empty)" : String(name.prefix(64))
        let client = Self.client(of: clientAddress)
        if let wait = perAddress.acquire(client) {
            logger.notice(
                "console sign-in throttled",
                metadata: ["operator": "\(who.escapedForDisplay())", "client": "\(client)", "retryAfter": "\(wait)"]
            )
            return .throttled(retryAfter: wait)
        }
        if let until = try registry.console.signInLock(name: who, client: client) {
            // No derivation. The trail's row is written off the pool when there is room, and
            // skipped (logged) when there is none.
            let detail = "locked until \(Self.stamp(until))"
            do {
                _ = try await trail.run { [self] in
                    Result { () throws(NBGWError) in
                        try refused("signin_locked", who, clientAddress, ErrorCode.rateLimited, detail)
                    }
                }.get()
            } catch let error as NBGWError {
                throw error
            } catch {
                logger.notice(
                    "console sign-in refused (locked); not in the trail: too many at once",
                    metadata: ["operator": "\(who.escapedForDisplay())", "client": "\(clientAddress)"]
                )
            }
            return .locked(until: until)
        }
        let found =
            password.utf8.count <= ConsolePasswordHasher.maximumLength
            ? try registry.console.findOperator(named: name) : nil
        let outcome: Result<Outcome, NBGWError>
        do {
            outcome = try await kdf.run { [self] in
                Result { () throws(NBGWError) in
                    try check(password, of: found, who: who, client: client, clientAddress: clientAddress)
                }
            }
        } catch {
            logger.notice(
                "console sign-in refused: too many at once",
                metadata: ["operator": "\(who.escapedForDisplay())", "client": "\(client)", "queue": "\(error)"]
            )
            return .throttled(retryAfter: .seconds(2))
        }
        return try outcome.get()
    }

    /// The derivation and its consequences, on ``kdf``'s thread.
    private func check(
        _ password: String,
        of found: ConsoleOperator?,
        who: String,
        client: String,
        clientAddress: String
    ) throws(NBGWError) -> Outcome {
        let verified: Bool
        if let found {
            verified = hasher.verify(password, against: found.passwordHash)
        } else {
            _ = hasher.verify(password, against: decoy.hash(hasher))
            verified = false
        }
        guard let found, verified else {
            let failure = try registry.console.recordSignInFailure(
                name: who,
                client: client,
                limit: lockAfter,
                lockFor: lockFor
            )
            if let until = failure.lockedUntil {
                try refused(
                    "lockout",
                    who,
                    clientAddress,
                    ErrorCode.rateLimited,
                    "\(failure.failures) refused sign-ins in a row from \(client); locked until \(Self.stamp(until))"
                )
                return .locked(until: until)
            }
            try refused(
                "signin_refused",
                who,
                clientAddress,
                ErrorCode.unauthenticated,
                found == nil
                    ? "unknown operator or over-long password" : "wrong password (\(failure.failures) in a row)"
            )
            return .refused
        }
        try registry.console.recordSignIn(name: found.name, client: client)
        try registry.console.recordAction("signin", operator: found.name, clientAddress: clientAddress, code: "OK")
        logger.info("console sign-in", metadata: ["operator": "\(found.name)", "client": "\(clientAddress)"])
        return .signedIn(found)
    }

    /// A refusal in the console's trail and at `notice` in the log (the words do not say whether
    /// the name exists: `detail` does, in the trail only).
    private func refused(
        _ event: String,
        _ who: String,
        _ clientAddress: String,
        _ code: ErrorCode,
        _ detail: String
    ) throws(NBGWError) {
        try registry.console.recordAction(
            event,
            operator: who,
            clientAddress: clientAddress,
            code: code.rawValue,
            detail: detail
        )
        logger.notice(
            "console sign-in refused",
            metadata: ["operator": "\(who.escapedForDisplay())", "client": "\(clientAddress)", "event": "\(event)"]
        )
        if pruned.due(at: clock.now()) {
            do {
                try registry.console.pruneSignInRefusals(
                    trailOlderThan: refusalRetention,
                    countsOlderThan: .seconds(86400)
                )
            } catch {
                logger.warning("could not age out refused sign-ins", metadata: ["error": "\(error.message)"])
            }
        }
    }

    static func stamp(_ date: Date) -> String { date.formatted(.iso8601) }
}
