import GRDB
import NBGWCore

extension Registry {
    /// How the store's module credentials stand against a secrets key
    /// (``Directory-swift.struct/credentialSealing()``).
    public struct CredentialSealing: Sendable, Equatable {
        /// Values (secrets and cloud credentials) written in clear by an nbgw older than sealing.
        public var inClear: Int
        /// Values sealed under the key asked about.
        public var sealedUnderKey: Int
        /// Rows with a value sealed under another key: IMEI → that key's id.
        public var underOtherKeys: [String: String]

        public init(inClear: Int = 0, sealedUnderKey: Int = 0, underOtherKeys: [String: String] = [:]) {
            self.inClear = inClear
            self.sealedUnderKey = sealedUnderKey
            self.underOtherKeys = underOtherKeys
        }
    }
}

extension Registry.Directory {
    /// Counts the module credentials in clear, sealed under `key` (nil: this process's key, if it
    /// has one), and sealed under other keys. Reads only; needs no key.
    public func credentialSealing(against key: StoreSecretsKey? = nil) throws(NBGWError) -> Registry.CredentialSealing {
        let id = (key ?? registry.secretsKey.key)?.id
        return try registry.read { db in try Self.sealing(db, keyID: id) }
    }

    /// Seals every credential an nbgw older than sealing wrote in clear, under this process's key,
    /// in one transaction, and scrubs the clear text from the file (`secure_delete` while it
    /// rewrites them, then a truncating checkpoint of the log). The daemon runs it at start;
    /// returns the state after (``Registry/CredentialSealing/inClear`` is then 0).
    ///
    /// - Throws: `SECRETS_KEY_MISSING` without a key.
    public func sealCredentialsInClear() throws(NBGWError) -> (sealed: Int, after: Registry.CredentialSealing) {
        guard let key = registry.secretsKey.key else {
            throw NBGWError(
                .secretsKeyMissing,
                "cannot seal the module credentials: this process has no secrets key (\(registry.secretsKey))"
            )
        }
        return try registry.writeScrubbing { db in
            var sealed = 0
            let rows = try Row.fetchAll(db, sql: "SELECT imei, secret, cloud_credential FROM module_credential")
            for row in rows {
                let imei: String = row["imei"]
                let secret: String = row["secret"]
                let credential: String? = row["cloud_credential"]
                var newSecret: String?
                var newCredential: String?
                if !CredentialSeal.isSealed(secret) {
                    newSecret = try CredentialSeal.seal(secret, imei: imei, column: .secret, key: key)
                }
                if let credential, !CredentialSeal.isSealed(credential) {
                    guard credential.utf8.count <= CredentialSeal.maximumCredentialBytes else {
                        throw NBGWError(
                            .invalidArgument,
                            "the cloud credential of IMEI \(imei) is \(credential.utf8.count) bytes, too long to keep "
                                + "sealed (at most \(CredentialSeal.maximumCredentialBytes)): register the module again"
                        )
                    }
                    newCredential = try CredentialSeal.seal(credential, imei: imei, column: .cloudCredential, key: key)
                }
                guard newSecret != nil || newCredential != nil else { continue }
                // updated_at stays: the values did not change, only how they are kept.
                try db.execute(
                    sql: """
                        UPDATE module_credential SET secret = coalesce(?, secret),
                            cloud_credential = coalesce(?, cloud_credential)
                        WHERE imei = ?
                        """,
                    arguments: [newSecret, newCredential, imei]
                )
                sealed += (newSecret == nil ? 0 : 1) + (newCredential == nil ? 0 : 1)
            }
            return (sealed, try Self.sealing(db, keyID: key.id))
        }
    }

    /// Seals every module credential again under `newKey` (`nbgw store rekey`), in one transaction:
    /// each is opened with this process's key first (a value in clear is taken as it is), so one
    /// that does not open stops the whole change with `SECRETS_KEY_MISMATCH` naming its IMEI.
    /// Returns how many values were sealed.
    public func resealCredentials(under newKey: StoreSecretsKey) throws(NBGWError) -> Int {
        guard let key = registry.secretsKey.key else {
            throw NBGWError(
                .secretsKeyMissing,
                "cannot reseal the module credentials: this process has no secrets key to open them with "
                    + "(\(registry.secretsKey))"
            )
        }
        return try registry.writeScrubbing { db in
            var sealed = 0
            let rows = try Row.fetchAll(db, sql: "SELECT imei, secret, cloud_credential FROM module_credential")
            for row in rows {
                let imei: String = row["imei"]
                let secret = try Registry.openCredential(row["secret"], imei: imei, column: .secret, key: key)
                let credential = try (row["cloud_credential"] as String?).map { (stored) throws(NBGWError) in
                    try Registry.openCredential(stored, imei: imei, column: .cloudCredential, key: key)
                }
                try db.execute(
                    sql: "UPDATE module_credential SET secret = ?, cloud_credential = ? WHERE imei = ?",
                    arguments: [
                        try CredentialSeal.seal(secret, imei: imei, column: .secret, key: newKey),
                        try credential.map { (text) throws(NBGWError) in
                            try CredentialSeal.seal(text, imei: imei, column: .cloudCredential, key: newKey)
                        },
                        imei,
                    ]
                )
                sealed += credential == nil ? 1 : 2
            }
            return sealed
        }
    }

    static func sealing(_ db: Database, keyID: String?) throws -> Registry.CredentialSealing {
        var sealing = Registry.CredentialSealing()
        let rows = try Row.fetchCursor(db, sql: "SELECT imei, secret, cloud_credential FROM module_credential")
        while let row = try rows.next() {
            let imei: String = row["imei"]
            for value in [row["secret"], row["cloud_credential"]] as [String?] {
                guard let value else { continue }
                guard CredentialSeal.isSealed(value) else {
                    sealing.inClear += 1
                    continue
                }
                let id = CredentialSeal.keyID(value) ?? "?"
                if id == keyID {
                    sealing.sealedUnderKey += 1
                } else {
                    sealing.underOtherKeys[imei] = id
                }
            }
        }
        return sealing
    }
}

extension Registry {
    /// ``write(_:)`` with SQLite's `secure_delete` on for the transaction, so the cells a rewrite
    /// frees are zeroed rather than left in the page, then a truncating checkpoint: the log's older
    /// frames (which may hold the previous values) are copied over and the log emptied. Best effort
    /// for the checkpoint: a reader holding an old snapshot keeps the log until the next one.
    func writeScrubbing<T>(_ body: (Database) throws -> T) throws(NBGWError) -> T {
        do {
            let result = try pool.writeWithoutTransaction { db -> T in
                let previous = try Int.fetchOne(db, sql: "PRAGMA secure_delete") ?? 0
                try db.execute(sql: "PRAGMA secure_delete = ON")
                defer { try? db.execute(sql: "PRAGMA secure_delete = \(previous == 0 ? "OFF" : "ON")") }
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
            try? pool.writeWithoutTransaction { db in
                _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            return result
        } catch {
            throw Registry.storeError(error, path: path)
        }
    }
}
