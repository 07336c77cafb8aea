import GRDB

extension Registry {
    /// The schema's history. A migration is frozen once it has shipped: never edit one, add another.
    ///
    /// Timestamps are INTEGER milliseconds since the Unix epoch (UTC). Tables are STRICT so a
    /// wrong type is an error, not a silent conversion.
    ///
    /// Each migration's SQL is in its own file, named by version: `Schema/Migration01+Foundation.swift`
    /// to `Schema/Migration13+SessionsAndScopes.swift`. The identifiers registered here are what a
    /// store records in `grdb_migrations`: never rename one, or existing stores run it again.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-foundation") { db in
            try db.execute(sql: v1Foundation)
        }
        migrator.registerMigration("v2-batch-jobs") { db in
            try db.execute(sql: v2BatchJobs)
        }
        migrator.registerMigration("v3-cloud-outbox") { db in
            try db.execute(sql: v3CloudOutbox)
        }
        migrator.registerMigration("v4-api-keys") { db in
            try db.execute(sql: v4APIKeys)
        }
        migrator.registerMigration("v5-modems") { db in try db.execute(sql: v5Modems) }
        migrator.registerMigration("v6-audit-origin") { db in try db.execute(sql: v6AuditOrigin) }
        migrator.registerMigration("v7-lean-bind") { db in try migrateToLeanBind(db) }
        migrator.registerMigration("v8-operator") { db in try migrateToOperator(db) }
        migrator.registerMigration("v9-module-credential") { db in try db.execute(sql: v9ModuleCredential) }
        migrator.registerMigration("v10-label-prints") { db in try db.execute(sql: v10LabelPrints) }
        migrator.registerMigration("v11-console-operators") { db in try db.execute(sql: v11ConsoleOperators) }
        migrator.registerMigration("v12-lean-batch") { db in try migrateToLeanBatch(db) }
        migrator.registerMigration("v13-sessions-and-scopes") { db in try db.execute(sql: v13SessionsAndScopes) }
        return migrator
    }
}
