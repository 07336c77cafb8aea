import CloudServer
import Foundation
import Logging
import PostgresNIO
import TuyaCloud

/// The fleet's state in PostgreSQL behind the cloud API's storage seam. Stateless: any number of
/// nodes share one database, and nothing is coordinated between them on the request path. Each
/// call is one READ COMMITTED transaction whose writes are single conditional statements (insert
/// on conflict do nothing, update … where … returning); a serialization failure or a deadlock is
/// retried a bounded number of times (``transaction(_:)``).
public final class FleetStore: Sendable {
    let client: PostgresClient
    let secrets: FleetSecrets
    let logger: Logger
    /// Counters for `/metrics` (docs/fleet.md, "Metrics").
    public let counters: FleetCounters
    let credentialCache: FleetCredentialCache
    let tokenCache: FleetTokenCache

    public convenience init(database: FleetDatabase, secrets: FleetSecrets, logger: Logger) {
        self.init(database: database, secrets: secrets, logger: logger, tokenCache: FleetTokenCache())
    }

    init(database: FleetDatabase, secrets: FleetSecrets, logger: Logger, tokenCache: FleetTokenCache) {
        self.client = database.makeClient(logger: logger)
        self.secrets = secrets
        self.logger = logger
        self.counters = FleetCounters()
        self.credentialCache = FleetCredentialCache()
        self.tokenCache = tokenCache
    }

    /// Runs the connection pool until cancelled; every other call needs it running.
    public func run() async {
        await client.run()
    }

    /// How many times a transaction is retried after a serialization failure (40001) or a
    /// deadlock (40P01) before the request fails with 500 (which clients retry later). Under READ
    /// COMMITTED neither is expected on the API's statements; the retries are there so that a move
    /// to an engine that runs everything SERIALIZABLE (CockroachDB, YugabyteDB) needs no change.
    static let maximumAttempts = 5

    /// Runs `body` in one transaction, retried on serialization failures and deadlocks. The body's
    /// own errors (a refusal to answer, a key let go, an operator's mistake) and the database's
    /// come out as themselves.
    func transaction<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        let logger = self.logger
        while true {
            do {
                counters.roundTrip()
                return try await client.withConnection { connection in
                    try await FleetStore.inTransaction(connection, logger: logger, body)
                }
            } catch let error where attempt < FleetStore.maximumAttempts && FleetStore.isRetryable(error) {
                counters.retry()
                attempt += 1
                // Why jitter: two transactions that collided once collide again when they retry in step.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 << attempt))))
            }
        }
    }

    /// BEGIN, `body`, COMMIT on `connection`; ROLLBACK when `body` throws, if the connection is
    /// still open.
    ///
    /// Why not postgres-nio's `withTransaction`: postgres-nio 1.33.2 writes every statement to the
    /// connection's channel without a write promise, so a statement written after PostgreSQL closed
    /// the connection (a crash, a shutdown, `pg_terminate_backend`) is dropped and its query never
    /// completes. `withTransaction` sends ROLLBACK exactly then, and the next statement of a body
    /// caught between two statements goes the same way: the request never answered and the node
    /// no longer stopped on SIGTERM (15 of 19 runs of the PostgreSQL crash test in
    /// `Tests/FleetCloudTests`, its requests answered only by the gateways' 20 s timeout). Here no
    /// statement is sent on a closed connection (``PostgresConnection/run(_:logger:)`` and the other
    /// helpers check first): such a transaction fails at once, and the client retries its key.
    static func inTransaction<Result: Sendable>(
        _ connection: PostgresConnection,
        logger: Logger,
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await connection.run("BEGIN", logger: logger)
        let value: Result
        do {
            value = try await body(connection)
        } catch {
            if !connection.isClosed {
                do {
                    try await connection.run("ROLLBACK", logger: logger)
                } catch {
                    // A connection that cannot roll back must not go back to the pool mid-transaction.
                    try? await connection.close()
                }
            }
            throw error
        }
        try await connection.run("COMMIT", logger: logger)
        return value
    }

    /// A serialization failure or a deadlock (also inside a transaction error of postgres-nio's).
    static func isRetryable(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            return [transaction.closureError, transaction.commitError, transaction.beginError]
                .contains { $0.map(isRetryable) ?? false }
        }
        if let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] {
            return state == "40001" || state == "40P01"
        }
        return false
    }

    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(_ error: any Error) -> String? {
        if let transaction = error as? PostgresTransactionError {
            return [transaction.closureError, transaction.commitError].lazy.compactMap { $0.flatMap(sqlState) }.first
        }
        return (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Whether the database answers within `deadline` (`/healthz`, `nbgw_cloud_database_up`).
    ///
    /// Why a deadline: with PostgreSQL down the pool queues the query until it can connect again
    /// (about 68 s before it gives up), so an unbounded check answered nothing: a load balancer's
    /// check timed out instead of seeing 503, and a metrics scrape lost every metric while the
    /// database was down. Why 1 s: under the 2 s check timeout of haproxy in tools/fleet-demo.sh,
    /// while `SELECT 1` takes milliseconds. A query still waiting for a connection is cancelled.
    public func ping(within deadline: Duration = .seconds(1)) async -> Bool {
        let (client, logger) = (self.client, self.logger)
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                do {
                    _ = try await client.withConnection { connection in
                        try await connection.first("SELECT 1", as: Int.self, logger: logger)
                    }
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? false
        }
    }
}

/// Thrown inside a transaction to roll it back and answer a refusal: what the transaction did so
/// far is undone, and the failure is the answer.
struct FleetRollback: Error {
    var failure: CloudServerFailure
    /// What to keep of the refusal once rolled back (a bind's pairing outcome).
    var record: Record?

    init(_ failure: CloudServerFailure, record: Record? = nil) {
        self.failure = failure
        self.record = record
    }
}
