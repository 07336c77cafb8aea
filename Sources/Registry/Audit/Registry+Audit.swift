import Foundation
import GRDB
import NBGWCore

extension Registry {
    /// The store's trail: the append-only audit log (every change, in its own transaction) and the
    /// ingest API's trail (who asked, from where). Reached as `registry.audit`.
    public struct Audit: Sendable {
        let registry: Registry
    }

    /// The audit log and the ingest trail (``Audit``).
    public var audit: Audit { Audit(registry: self) }
}

extension Registry {
    /// Appends one audit row inside the caller's transaction, so the log and the change commit together.
    ///
    /// - Parameter origin: the ingest API caller of a bind (the key's name and the client's address,
    ///   migration v6); nil for everything else. The address is cut to the column's 128 characters.
    static func appendAudit(
        _ db: Database,
        at: Int64,
        event: String,
        deviceID: String? = nil,
        imei: String? = nil,
        account: String? = nil,
        home: String? = nil,
        source: String? = nil,
        operator: String? = nil,
        code: String? = nil,
        detail: String? = nil,
        origin: BindCommand.IngestOrigin? = nil
    ) throws {
        // Run through the C API: every change writes one of these, binds two.
        let statement = try PreparedStatement.cached(
            db,
            """
            INSERT INTO audit_log
                (at, event, device_id, imei, account, home, source, operator, code, detail, api_key, client_address)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        )
        statement.bind(
            .integer(at),
            .text(event),
            .text(deviceID),
            .text(imei),
            .text(account),
            .text(home),
            .text(source),
            .text(`operator`),
            .text(code),
            .text(detail),
            .text(origin?.apiKey),
            .text(origin.map { String($0.clientAddress.prefix(128)) })
        )
        try statement.run()
    }

}

extension Registry.Audit {
    /// The trail, oldest first, optionally for one device: the audit log's rows and a CSV batch's
    /// binds, which are kept with their job (migration v12, the `audit_trail` view; their ids are
    /// negative). Entries of one instant come audit log first, each source in its own order.
    public func entries(deviceID: String? = nil, limit: Int = 1000) throws(NBGWError) -> [AuditEntry] {
        try registry.read { db in
            let order = "ORDER BY at, id < 0, abs(id) LIMIT ?"
            let rows =
                if let deviceID {
                    try Row.fetchAll(
                        db,
                        sql: "SELECT * FROM audit_trail WHERE device_id = ? \(order)",
                        arguments: [deviceID, limit]
                    )
                } else {
                    try Row.fetchAll(db, sql: "SELECT * FROM audit_trail \(order)", arguments: [limit])
                }
            return rows.map { row in
                AuditEntry(
                    id: row["id"],
                    at: Date(millis: row["at"]),
                    event: row["event"],
                    deviceID: row["device_id"],
                    imei: row["imei"],
                    account: row["account"],
                    home: row["home"],
                    source: row["source"],
                    operator: row["operator"],
                    code: row["code"],
                    detail: row["detail"],
                    apiKey: row["api_key"],
                    clientAddress: row["client_address"]
                )
            }
        }
    }
}
