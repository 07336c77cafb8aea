import PostgresNIO

extension FleetStore {
    /// Applies the migrations this build knows and the database lacks, each in one transaction,
    /// under an exclusive lock on the version table so that two nodes started at once apply
    /// each migration once. Returns the versions applied.
    @discardableResult
    public func migrate() async throws -> [Int] {
        let logger = self.logger
        return try await client.withConnection { connection in
            do {
                try await connection.run(
                    """
                    CREATE TABLE IF NOT EXISTS nbgw_schema (
                        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """,
                    logger: logger
                )
            } catch {
                // Two nodes migrating at once: IF NOT EXISTS is not atomic in PostgreSQL (the loser
                // fails on the catalog's unique index, 23505); the table is there all the same.
                let exists = try await connection.first(
                    "SELECT to_regclass('nbgw_schema') IS NOT NULL",
                    as: Bool.self,
                    logger: logger
                )
                guard exists == true else { throw error }
            }
            var applied: [Int] = []
            for (version, sql) in FleetSchema.migrations {
                let done = try await connection.withTransaction(logger: logger) { connection in
                    // Why a table lock, not an advisory lock: it is plain SQL every
                    // PostgreSQL-compatible engine has, and it ends with the transaction.
                    try await connection.run("LOCK TABLE nbgw_schema IN EXCLUSIVE MODE", logger: logger)
                    let present = try await connection.run(
                        "SELECT 1 FROM nbgw_schema WHERE version = \(version)",
                        logger: logger
                    )
                    if present == 1 { return false }
                    for statement in FleetStore.statements(sql) {
                        try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.run("INSERT INTO nbgw_schema (version) VALUES (\(version))", logger: logger)
                    return true
                }
                if done { applied.append(version) }
            }
            return applied
        }
    }

    /// The schema version of the database (0 when never migrated).
    public func schemaVersion() async throws -> Int {
        let logger = self.logger
        return try await client.withConnection { connection in
            let exists = try await connection.first(
                "SELECT to_regclass('nbgw_schema') IS NOT NULL",
                as: Bool.self,
                logger: logger
            )
            guard exists == true else { return 0 }
            return try await connection.first("SELECT coalesce(max(version), 0) FROM nbgw_schema", as: Int.self, logger: logger)
                ?? 0
        }
    }

    /// Refuses to serve a database whose schema this build does not know.
    public func checkSchema() async throws {
        let version = try await schemaVersion()
        guard version == FleetSchema.version else {
            if version < FleetSchema.version {
                throw FleetError(
                    "the database is at schema version \(version), this node serves \(FleetSchema.version): "
                        + "run `nbgw-cloud migrate` first"
                )
            }
            throw FleetError(
                "the database is at schema version \(version), newer than this node's \(FleetSchema.version): "
                    + "upgrade this node"
            )
        }
    }

    /// A migration script split into statements at `;` line ends (the scripts are ours: no `;`
    /// inside a literal ends a line).
    static func statements(_ script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("--") { continue }
            current += line + "\n"
            if trimmed.hasSuffix(";") {
                statements.append(current)
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { statements.append(current) }
        return statements
    }
}
