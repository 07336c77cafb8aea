import Logging
import PostgresNIO

extension PostgresConnection {
    /// The first row of `query` decoded as `type`, or nil when it returns none.
    func first<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery,
        as type: (repeat each Column).Type,
        logger: Logger
    ) async throws -> (repeat each Column)? {
        let rows = try await self.query(query, logger: logger)
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
        let rows = try await self.query(query, logger: logger)
        for try await row in rows.decode(type) { result.append(row) }
        return result
    }

    /// Runs a statement and counts the rows it returned (a `RETURNING` clause's).
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> Int {
        var count = 0
        let rows = try await self.query(query, logger: logger)
        for try await _ in rows { count += 1 }
        return count
    }
}
