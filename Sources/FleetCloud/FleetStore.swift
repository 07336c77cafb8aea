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

    public init(database: FleetDatabase, secrets: FleetSecrets, logger: Logger) {
        self.client = database.makeClient(logger: logger)
        self.secrets = secrets
        self.logger = logger
        self.counters = FleetCounters()
        self.credentialCache = FleetCredentialCache()
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

    /// Runs `body` in one transaction, retried on serialization failures and deadlocks.
    func transaction<Result: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        while true {
            do {
                counters.roundTrip()
                return try await client.withTransaction(logger: logger) { connection in
                    try await body(connection)
                }
            } catch let error where attempt < FleetStore.maximumAttempts && FleetStore.isRetryable(error) {
                counters.retry()
                attempt += 1
                // Why jitter: two transactions that collided once collide again when they retry in step.
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 << attempt))))
            } catch let error as PostgresTransactionError {
                // The body's own errors (a refusal to answer, a key let go, an operator's mistake)
                // come out as themselves; only the database's stay wrapped.
                if let inner = error.closureError, !(inner is PSQLError) { throw inner }
                throw error
            }
        }
    }

    /// A serialization failure or a deadlock, wherever the transaction error carries it.
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

    /// Whether the database answers now (`/healthz`).
    public func ping() async -> Bool {
        do {
            let rows = try await client.query("SELECT 1", logger: logger)
            for try await _ in rows {}
            return true
        } catch {
            return false
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
