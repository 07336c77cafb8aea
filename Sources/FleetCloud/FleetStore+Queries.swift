import Logging
import PostgresNIO

extension PostgresConnection {
    /// The rows of `query`, never sent on a closed connection: postgres-nio 1.33.2 drops a query
    /// written after the connection closed without ever completing it
    /// (``FleetStore/inTransaction(_:logger:_:)`` says more).
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        guard !isClosed else {
            throw FleetError("the database closed the connection before the next statement; retry the request")
        }
        return try await self.query(query, logger: logger)
    }

    /// The first row of `query` decoded as `type`, or nil when it returns none.
    func first<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery,
        as type: (repeat each Column).Type,
        logger: Logger
    ) async throws -> (repeat each Column)? {
        let rows = try await self.rows(query, logger: logger)
        for try await row in rows.decode(type) { return row }
        return nil
    }

    /// Every row of `query` decoded as `type`.
    func all<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery,
        as type: (repeat each Column).Type,
        logger: Logger
    ) async throws -> [(repeat each Column)] {
        var result: [(repeat each Column)] = []
        let rows = try await self.rows(query, logger: logger)
        for try await row in rows.decode(type) { result.append(row) }
        return result
    }

    /// Runs a statement and counts the rows it returned (a `RETURNING` clause's).
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> Int {
        var count = 0
        let rows = try await self.rows(query, logger: logger)
        for try await _ in rows { count += 1 }
        return count
    }
}
