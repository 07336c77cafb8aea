import CloudServer
import PostgresNIO
import TuyaCloud

extension FleetStore {
    /// The tenant's events after `cursor` (`TX-ID`, as issued), of finished transactions only
    /// (``FleetSchema/v2`` says why), in (tx, id) order.
    public func events(
        _ principal: CloudPrincipal,
        after cursor: String?,
        limit: Int
    ) async throws
        -> Result<CloudAPI.EventPage, CloudServerFailure>?
    {
        var position = (tx: "0", id: Int64(0))
        if let cursor {
            let parts = cursor.split(separator: "-", omittingEmptySubsequences: false)
            // As docs/cloud-api.yaml's pattern says: up to 19 and 18 digits, which always fit.
            guard parts.count == 2, (1...19).contains(parts[0].count), (1...18).contains(parts[1].count),
                parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                let tx = UInt64(parts[0]), let id = Int64(parts[1])
            else {
                return .failure(.invalid("after must be a cursor this cloud issued (next_cursor), or absent"))
            }
            position = (String(tx), id)
        }
        let logger = self.logger
        let rows = try await client.withConnection { connection in
            try await connection.all(
                """
                SELECT tx::text, id, kind, at, device_id, gateway, detail FROM event
                WHERE tenant_id = \(principal.tenant)
                    AND (tx, id) > (CAST(\(position.tx) AS xid8), \(position.id))
                    AND tx < pg_snapshot_xmin(pg_current_snapshot())
                ORDER BY tx, id LIMIT \(limit)
                """,
                as: EventRow.self,
                logger: logger
            )
        }
        let events = rows.map(FleetStore.event)
        return .success(CloudAPI.EventPage(events: events, nextCursor: events.last?.cursor ?? cursor ?? "0-0"))
    }

    /// An event as read by `SELECT tx::text, id, kind, at, device_id, gateway, detail FROM event`
    /// (the stream and a device's log).
    typealias EventRow = (String, Int64, String, Int64, String, String, String?)

    static func event(_ row: EventRow) -> CloudAPI.Event {
        CloudAPI.Event(
            cursor: "\(row.0)-\(row.1)",
            type: row.2,
            at: row.3,
            deviceID: row.4,
            gateway: row.5,
            detail: row.6
        )
    }
}
