import GRDB
import NBGWCore

extension Registry.Directory {
    /// The module's secret (``v9ModuleCredential``): generated on first use, the same ever after,
    /// kept sealed under the secrets key (``CredentialSeal``). A cloud that authenticates things by
    /// password registers the module with it.
    ///
    /// - Throws: `SECRETS_KEY_MISSING` in a process without the secrets key (nothing is written: a
    ///   secret is never stored in clear); `SECRETS_KEY_MISMATCH` when the stored secret does not
    ///   open with this key.
    public func moduleSecret(imei: String) throws(NBGWError) -> String {
        let key = try registry.requireSecretsKey(imei: imei, "the module's secret")
        let now = registry.nowMillis()
        return try registry.write { db in
            if let stored = try String.fetchOne(
                db,
                sql: "SELECT secret FROM module_credential WHERE imei = ?",
                arguments: [imei]
            ) {
                return try Registry.openCredential(stored, imei: imei, column: .secret, key: key)
            }
            let secret = IdempotencyKey.randomText(count: 32)
            try db.execute(
                sql: """
                    INSERT INTO module_credential (imei, secret, cloud_credential, created_at, updated_at)
                    VALUES (?, ?, NULL, ?, ?)
                    """,
                arguments: [imei, try CredentialSeal.seal(secret, imei: imei, column: .secret, key: key), now, now]
            )
            return secret
        }
    }

    /// The secret of the module with this device id, nil when none was made (a module registered
    /// with a cloud that authenticates things otherwise). Reads only: never makes one.
    ///
    /// - Throws: `SECRETS_KEY_MISSING` or `SECRETS_KEY_MISMATCH` (``moduleSecret(imei:)``) when
    ///   there is a secret to open.
    public func moduleSecret(deviceID: String) throws(NBGWError) -> String? {
        guard let row = try moduleCredentialRow(deviceID: deviceID) else { return nil }
        let imei: String = row["imei"]
        return try registry.openCredential(row["secret"], imei: imei, column: .secret, device: deviceID)
    }

    /// What the cloud issued to a registered module (a thing's access token), nil when it issued
    /// nothing.
    ///
    /// - Throws: `SECRETS_KEY_MISSING` or `SECRETS_KEY_MISMATCH` when there is a credential to open.
    public func moduleCredential(deviceID: String) throws(NBGWError) -> String? {
        guard let row = try moduleCredentialRow(deviceID: deviceID) else { return nil }
        let imei: String = row["imei"]
        return try registry.openCredential(
            row["cloud_credential"],
            imei: imei,
            column: .cloudCredential,
            device: deviceID
        )
    }

    private func moduleCredentialRow(deviceID: String) throws(NBGWError) -> Row? {
        try registry.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT c.imei, c.secret, c.cloud_credential FROM module_credential AS c
                    JOIN device AS d ON d.imei = c.imei
                    WHERE d.device_id = ?
                    """,
                arguments: [deviceID]
            )
        }
    }

    /// Every credential a cloud issued, by IMEI (the sync check hands them to the cloud).
    ///
    /// - Throws: `SECRETS_KEY_MISSING` when there is one and this process has no secrets key;
    ///   `SECRETS_KEY_MISMATCH` naming the first that does not open.
    public func moduleCredentials() throws(NBGWError) -> [String: String] {
        let stored = try registry.read { db in
            var stored: [(imei: String, credential: String)] = []
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT imei, cloud_credential FROM module_credential WHERE cloud_credential IS NOT NULL "
                    + "ORDER BY imei"
            )
            while let row = try rows.next() {
                stored.append((row["imei"], row["cloud_credential"]))
            }
            return stored
        }
        var credentials: [String: String] = [:]
        for (imei, credential) in stored {
            credentials[imei] = try registry.openCredential(credential, imei: imei, column: .cloudCredential)
        }
        return credentials
    }
}

extension Registry {
    /// The secrets key, or `SECRETS_KEY_MISSING` naming the IMEI, what needed the key and why this
    /// process has none.
    func requireSecretsKey(imei: String, _ what: String) throws(NBGWError) -> StoreSecretsKey {
        switch secretsKey {
        case .key(let key):
            return key
        case .unavailable(let reason):
            throw NBGWError(
                .secretsKeyMissing,
                "\(what) of IMEI \(imei) is sealed under the store's secrets key, and this process has none "
                    + "(\(reason)); nbgwd holds the key and does this work itself (docs/operations.md, \"Module "
                    + "credentials\")"
            )
        }
    }

    /// Opens a stored credential value of the row `imei` (nil stays nil); `device` names the module
    /// in the messages too.
    func openCredential(
        _ stored: String?,
        imei: String,
        column: CredentialSeal.Column,
        device: String? = nil
    ) throws(NBGWError) -> String? {
        guard let stored else { return nil }
        let key = try requireSecretsKey(imei: imei, "the module's \(column.noun)")
        return try Registry.openCredential(stored, imei: imei, column: column, key: key, device: device)
    }

    /// A sealed value opened; a value an nbgw older than sealing wrote in clear is returned as it
    /// is (only a process holding the key reads it: the daemon seals such rows when it starts,
    /// ``Directory-swift.struct/sealCredentialsInClear()``).
    static func openCredential(
        _ stored: String,
        imei: String,
        column: CredentialSeal.Column,
        key: StoreSecretsKey,
        device: String? = nil
    ) throws(NBGWError) -> String {
        guard CredentialSeal.isSealed(stored) else { return stored }
        return try CredentialSeal.open(stored, imei: imei, column: column, key: key, device: device)
    }

    /// Keeps a credential the cloud issued, sealed, inside the caller's transaction. The secret row
    /// exists when the registrar asked for the secret first; a cloud that uses no secret still gets
    /// one here, so the row's shape holds.
    ///
    /// - Throws: `SECRETS_KEY_MISSING` without the key (the caller's transaction then writes nothing);
    ///   `INVALID_ARGUMENT` for a credential too long to keep sealed.
    func storeCloudCredential(_ db: Database, imei: String, credential: String, now: Int64) throws {
        let key = try requireSecretsKey(imei: imei, "the module's cloud credential")
        guard credential.utf8.count <= CredentialSeal.maximumCredentialBytes else {
            throw NBGWError(
                .invalidArgument,
                "the cloud issued IMEI \(imei) a credential of \(credential.utf8.count) bytes; nbgw keeps at most "
                    + "\(CredentialSeal.maximumCredentialBytes): check the cloud's configuration"
            )
        }
        try db.execute(
            sql: """
                INSERT INTO module_credential (imei, secret, cloud_credential, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (imei) DO UPDATE SET cloud_credential = excluded.cloud_credential,
                    updated_at = excluded.updated_at
                """,
            arguments: [
                imei,
                try CredentialSeal.seal(IdempotencyKey.randomText(count: 32), imei: imei, column: .secret, key: key),
                try CredentialSeal.seal(credential, imei: imei, column: .cloudCredential, key: key),
                now, now,
            ]
        )
    }
}
