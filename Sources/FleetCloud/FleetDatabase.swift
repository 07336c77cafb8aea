import Foundation
import Logging
import PostgresNIO

/// Where the fleet's PostgreSQL is and how to reach it: a `postgresql://USER@HOST[:PORT]/DB` URL
/// (no password in it: URLs end up in process lists, shell history and logs) and the password
/// apart, from a file or the environment.
public struct FleetDatabase: Sendable {
    public var host: String
    public var port: Int
    public var user: String
    public var database: String
    /// Never logged, never on argv.
    var password: String?
    /// Pooled connections per node. Why 16: PostgreSQL's default `max_connections` is 100, and a
    /// few nodes with 16 each leave room for `psql`, backups and replication (docs/fleet.md,
    /// "PostgreSQL settings").
    public var maximumConnections: Int
    public init(url: String, password: String?, maximumConnections: Int = 16) throws {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme, scheme == "postgresql" || scheme == "postgres",
            let host = components.host, !host.isEmpty
        else {
            throw FleetError(
                "the database URL \(url.debugDescription) is not postgresql://USER@HOST[:PORT]/DATABASE; "
                    + "put the password in a file (--database-password-file) or NBGW_CLOUD_DATABASE_PASSWORD"
            )
        }
        guard components.password == nil else {
            throw FleetError(
                "the database URL carries a password; URLs end up in process lists and logs: put the password "
                    + "in a file (--database-password-file) or NBGW_CLOUD_DATABASE_PASSWORD instead"
            )
        }
        self.host = host
        self.port = components.port ?? 5432
        self.user = components.user ?? "nbgw"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? "nbgw" : path
        self.password = password
        self.maximumConnections = maximumConnections
    }

    /// The URL without a password, for logs and messages.
    public var displayURL: String { "postgresql://\(user)@\(host):\(port)/\(database)" }

    /// A pooled client; it must `run()` while in use (``FleetStore/run()``).
    func makeClient(logger: Logger) -> PostgresClient {
        var configuration = PostgresClient.Configuration(
            host: host,
            port: port,
            username: user,
            password: password,
            database: database,
            tls: .disable
        )
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        // No keep-alive query. Why: the pool starts a timer (a task, a task group and a dispatch
        // timer) each time a connection goes back idle, one for its keep-alive and one for its idle
        // timeout: at 32 clients the two were 16% of a node's CPU per bind (1.66 ms, 1.39 without
        // them; tools/bench-cloud.sh, one node at half a core). A connection the server or a firewall dropped fails its next
        // query, which the node answers as retryable; PostgreSQL's `tcp_keepalives_idle` keeps a
        // firewall's state of idle connections fresh (docs/fleet.md, "PostgreSQL settings").
        // The idle timer stays: the way to drop it is to keep every connection open
        // (`minimumConnections` at the maximum), but with that postgres-nio 1.33.2's pool never reconnected after
        // PostgreSQL crashed under load (FleetCrashTests' databaseCrashedUnderLoad, 3 runs of 3).
        configuration.options.keepAliveBehavior = nil
        // The pool's own log: errors only (it warns when a query is queued before `run()` got
        // going, which the commands do by design: the query waits for it).
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        return PostgresClient(configuration: configuration, backgroundLogger: background)
    }
}

/// A fleet cloud error for its operator: what failed and what to do.
public struct FleetError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }
}

extension FleetDatabase {
    /// A database error in words for an operator: the server's own message and SQLSTATE when it
    /// sent one, else the connection failure.
    public static func describe(_ error: any Error) -> String {
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError ?? transaction.commitError ?? transaction.beginError {
                return describe(inner)
            }
        }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return message + state
            }
            if let underlying = error.underlying { return "cannot connect: \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

extension FleetDatabase {
    /// One connection outside the pool, opened and closed, to say at once why the database cannot
    /// be used. Why: the pool retries a failing connection quietly and gives up only after about
    /// 68 s with "circuit breaker tripped" (measured with a wrong password and with nothing
    /// listening), which tells an operator neither what nor why.
    public func probe(logger: Logger) async throws {
        var configuration = PostgresConnection.Configuration(
            host: host,
            port: port,
            username: user,
            password: password,
            database: database,
            tls: .disable
        )
        configuration.options.connectTimeout = .seconds(5)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw FleetError(
                "cannot use \(displayURL): \(FleetDatabase.describe(error)); \(FleetDatabase.advice(error))"
            )
        }
    }

    /// What to do about a connection failure.
    static func advice(_ error: any Error) -> String {
        switch (error as? PSQLError)?.serverInfo?[.sqlState] {
        case "28P01", "28000":
            return "check the password (--database-password-file or NBGW_CLOUD_DATABASE_PASSWORD) and pg_hba.conf"
        case "3D000":
            return "create the database, or fix the URL's database name"
        default:
            return "check that PostgreSQL runs and listens there (pg_isready -h HOST -p PORT)"
        }
    }
}
