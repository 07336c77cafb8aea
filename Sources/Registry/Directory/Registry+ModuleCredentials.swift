import GRDB
import NBGWCore

extension Registry.Directory {
    /// The module's secret (``v9ModuleCredential``): generated on first use, the same ever after.
    /// A cloud that authenticates things by password registers the module with it.
    public func moduleSecret(imei: String) throws(NBGWError) -> String {
        let now = registry.nowMillis()
        return try registry.write { db in
            if let secret = try String.fetchOne(
                db,
                sql: "SELECT secret FROM module_credential WHERE imei = ?",
                arguments: [imei]
            ) {
                return secret
            }
            let secret = IdempotencyKey.randomText(count: 32)
            try db.execute(
                sql: """
                    INSERT INTO module_credential (imei, secret, cloud_credential, created_at, updated_at)
                    VALUES (?, ?, NULL, ?, ?)
                    """,
                arguments: [imei, secret, now, now]
            )
            return secret
        }
    }

    /// The secret of the module with this device id, nil when none was made (a module registered
    /// with a cloud that authenticates things otherwise). Reads only: never makes one.
    public func moduleSecret(deviceID: String) throws(NBGWError) -> String? {
        try moduleCredentialRow(deviceID: deviceID)?["secret"]
    }

    /// What the cloud issued to a registered module (a thing's access token), nil when it issued
    /// nothing.
    public func moduleCredential(deviceID: String) throws(NBGWError) -> String? {
        try moduleCredentialRow(deviceID: deviceID)?["cloud_credential"]
    }

    private func moduleCredentialRow(deviceID: String) throws(NBGWError) -> Row? {
        try registry.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT c.secret, c.cloud_credential FROM module_credential AS c JOIN device AS d ON d.imei = c.imei
                    WHERE d.device_id = ?
                    """,
                arguments: [deviceID]
            )
        }
    }

    /// Every credential a cloud issued, by IMEI (the sync check hands them to the cloud).
    public func moduleCredentials() throws(NBGWError) -> [String: String] {
        try registry.read { db in
            var credentials: [String: String] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT imei, cloud_credential FROM module_credential WHERE cloud_credential IS NOT NULL"
            )
            while let row = try rows.next() {
                credentials[row["imei"]] = row["cloud_credential"]
            }
            return credentials
        }
    }
}

extension Registry {
    /// Keeps a credential the cloud issued, inside the caller's transaction. The secret row exists
    /// when the registrar asked for the secret first; a cloud that uses no secret still gets one
    /// here, so the row's shape holds.
    static func storeCloudCredential(_ db: Database, imei: String, credential: String, now: Int64) throws {
        try db.execute(
            sql: """
                INSERT INTO module_credential (imei, secret, cloud_credential, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (imei) DO UPDATE SET cloud_credential = excluded.cloud_credential,
                    updated_at = excluded.updated_at
                """,
            arguments: [imei, IdempotencyKey.randomText(count: 32), credential, now, now]
        )
    }
}
