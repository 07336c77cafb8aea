import CloudServer
import PostgresNIO
import TuyaCloud

/// Device management on PostgreSQL (docs/fleet.md, "Device management"). Each change is one
/// conditional statement whose `RETURNING` rows say what happened, in the transaction of its
/// idempotency record and its event: a transfer moves the binding only from the owner it names, a
/// freeze changes only a device not yet frozen, a delete removes what is there.
extension FleetStore {
    public var managesDevices: Bool { true }

    /// The columns ``device(_:)`` reads: the registration and its binding, if any.
    static let deviceColumns = """
        d.device_id, d.imei, d.label_code, d.product_id, d.imsi, d.iccid, d.manufacturer, d.model, d.firmware,
        d.registered_by, d.created_at, d.updated_at, d.frozen_reason, b.uid, b.home, b.gateway, b.bound_at
        """

    typealias DeviceRow = (
        String, String, String, String?, String?, String?, String?, String?, String?, String, Int64, Int64, String?,
        String?, String?, String?, Int64?
    )

    static func device(_ row: DeviceRow) -> CloudAPI.Device {
        var binding: CloudAPI.DeviceBinding?
        if let uid = row.13, let home = row.14, let gateway = row.15, let boundAt = row.16 {
            binding = CloudAPI.DeviceBinding(uid: uid, home: home, gateway: gateway, boundAt: boundAt)
        }
        return CloudAPI.Device(
            deviceID: row.0,
            imei: row.1,
            labelCode: row.2,
            productID: row.3,
            imsi: row.4,
            iccid: row.5,
            manufacturer: row.6,
            model: row.7,
            firmware: row.8,
            registeredBy: row.9,
            registeredAt: row.10,
            updatedAt: row.11,
            frozen: row.12 != nil,
            frozenReason: row.12,
            binding: binding
        )
    }

    public func devices(_ principal: CloudPrincipal, ids: [String]) async throws -> [CloudAPI.Device] {
        let ids = ids.filter { !$0.hasNUL }
        guard !ids.isEmpty else { return [] }
        let logger = self.logger
        let found = try await client.withConnection { connection in
            try await FleetStore.devices(connection, tenant: principal.tenant, ids: ids, logger: logger)
        }
        return found
    }

    static func devices(
        _ connection: PostgresConnection,
        tenant: String,
        ids: [String],
        logger: Logger
    ) async throws
        -> [CloudAPI.Device]
    {
        let rows = try await connection.all(
            """
            SELECT \(unescaped: deviceColumns) FROM device d LEFT JOIN binding b ON b.device_id = d.device_id
            WHERE d.tenant_id = \(tenant) AND d.device_id = ANY(\(ids))
            """,
            as: DeviceRow.self,
            logger: logger
        )
        let byID = Dictionary(
            rows.map { (row: DeviceRow) in (row.0, device(row)) },
            uniquingKeysWith: { first, _ in first }
        )
        return ids.compactMap { byID[$0] }
    }

    public func devices(
        _ principal: CloudPrincipal,
        home: String,
        after: String,
        limit: Int
    ) async throws
        -> Result<CloudAPI.Page<CloudAPI.Device>, CloudServerFailure>
    {
        let after = after.withoutNUL
        let logger = self.logger
        return try await client.withConnection { connection in
            let known = try await connection.run(
                "SELECT 1 FROM home WHERE tenant_id = \(principal.tenant) AND name = \(home)",
                logger: logger
            )
            guard known == 1 else {
                return .failure(
                    CloudServerFailure(TuyaErrorCode.dataNotExist, "data not exist: the tenant has no such home")
                )
            }
            let rows = try await connection.all(
                """
                SELECT \(unescaped: FleetStore.deviceColumns) FROM binding b JOIN device d ON d.device_id = b.device_id
                WHERE b.tenant_id = \(principal.tenant) AND b.home = \(home) AND b.device_id > \(after)
                ORDER BY b.device_id LIMIT \(limit + 1)
                """,
                as: DeviceRow.self,
                logger: logger
            )
            let list = rows.prefix(limit).map { FleetStore.device($0) }
            return .success(
                CloudAPI.Page(list: Array(list), hasMore: rows.count > limit, lastRowKey: list.last?.deviceID)
            )
        }
    }

    public func deviceLog(
        _ principal: CloudPrincipal,
        deviceID: String,
        after: Int64,
        limit: Int
    ) async throws
        -> Result<CloudAPI.Page<CloudAPI.Event>, CloudServerFailure>
    {
        let logger = self.logger
        return try await client.withConnection { connection in
            // The log outlives the device: a deleted device's entries stay readable by its id.
            let rows = try await connection.all(
                """
                SELECT tx::text, id, kind, at, device_id, gateway, detail FROM event
                WHERE tenant_id = \(principal.tenant) AND device_id = \(deviceID) AND id > \(after)
                ORDER BY id LIMIT \(limit + 1)
                """,
                as: EventRow.self,
                logger: logger
            )
            if rows.isEmpty, after == 0 {
                let known = try await connection.run(
                    "SELECT 1 FROM device WHERE tenant_id = \(principal.tenant) AND device_id = \(deviceID)",
                    logger: logger
                )
                if known == 0 { return .failure(CloudServerRules.unknownDevice) }
            }
            let list = rows.prefix(limit).map(FleetStore.event)
            let last = rows.prefix(limit).last.map { String($0.1) }
            return .success(CloudAPI.Page(list: Array(list), hasMore: rows.count > limit, lastRowKey: last))
        }
    }

    /// Moves the binding from the owner the request names to the one it asks for, in one
    /// conditional `UPDATE`; the target home is created for its account on first use, as a
    /// pairing token does (3006 when it is another account's).
    static func transfer(
        _ deviceID: String,
        _ request: CloudAPI.TransferRequest,
        _ context: FleetMutationContext
    ) async throws -> String {
        let (connection, logger, tenant, now) = (
            context.connection, context.logger, context.principal.tenant, context.now
        )
        try await ensureDevice(deviceID, context)
        let owner = try await homeOwner(request.toHome, creatingFor: request.toUID, context)
        guard owner == request.toUID else { throw FleetRollback(CloudServerRules.homeOfAnotherAccount) }
        // From where it is to where it is: no move, answered as the same transfer again is.
        let stays = request.fromUID == request.toUID && request.fromHome == request.toHome
        let moved =
            stays
            ? 0
            : try await connection.run(
                """
                UPDATE binding SET uid = \(request.toUID), home = \(request.toHome), token = NULL, bound_at = \(now)
                WHERE device_id = \(deviceID) AND tenant_id = \(tenant) AND uid = \(request.fromUID)
                    AND home = \(request.fromHome)
                RETURNING 1
                """,
                logger: logger
            )
        var status = "transferred"
        if moved == 0 {
            guard
                let current = try await connection.first(
                    "SELECT uid, home, gateway FROM binding WHERE device_id = \(deviceID)",
                    as: (String, String, String).self,
                    logger: logger
                )
            else { throw FleetRollback(CloudServerFailure(TuyaErrorCode.deviceNotBound, "device not bound")) }
            // Already where it was asked to go (the same transfer under a new key): nothing to do.
            guard current.0 == request.toUID, current.1 == request.toHome else {
                context.counters.conflict("transfer_owner_changed")
                throw FleetRollback(
                    CloudServerRules.transferFoundAnotherOwner(uid: current.0, home: current.1, gateway: current.2)
                )
            }
            status = "unchanged"
        } else {
            try await context.event(
                "transferred",
                device: deviceID,
                detail: "from \(request.fromUID) in \(request.fromHome) to \(request.toUID) in \(request.toHome): "
                    + request.reason
            )
        }
        return try await changeResult(deviceID, status: status, context)
    }

    /// Freezes or unfreezes a device: one conditional `UPDATE`; a device already so is `unchanged`.
    static func freeze(
        _ deviceID: String,
        _ request: CloudAPI.FreezeRequest,
        _ context: FleetMutationContext
    ) async throws -> String {
        let (connection, logger, tenant, now) = (
            context.connection, context.logger, context.principal.tenant, context.now
        )
        let changed =
            request.frozen
            ? try await connection.run(
                """
                UPDATE device SET frozen_at = \(now), frozen_reason = \(request.reason), updated_at = \(now)
                WHERE device_id = \(deviceID) AND tenant_id = \(tenant) AND frozen_at IS NULL RETURNING 1
                """,
                logger: logger
            )
            : try await connection.run(
                """
                UPDATE device SET frozen_at = NULL, frozen_reason = NULL, updated_at = \(now)
                WHERE device_id = \(deviceID) AND tenant_id = \(tenant) AND frozen_at IS NOT NULL RETURNING 1
                """,
                logger: logger
            )
        if changed == 0 {
            try await ensureDevice(deviceID, context)
            return try await changeResult(deviceID, status: "unchanged", context)
        }
        let kind = request.frozen ? "frozen" : "unfrozen"
        try await context.event(kind, device: deviceID, detail: request.reason)
        return try await changeResult(deviceID, status: kind, context)
    }

    /// Deletes a device's registration and its binding; its operation log stays. The module may
    /// register again later and gets a registration of its own.
    static func delete(_ deviceID: String, _ context: FleetMutationContext) async throws -> String {
        let (connection, logger, tenant) = (context.connection, context.logger, context.principal.tenant)
        let owner = try await connection.first(
            "DELETE FROM binding WHERE device_id = \(deviceID) AND tenant_id = \(tenant) RETURNING uid, home",
            as: (String, String).self,
            logger: logger
        )
        guard
            let imei = try await connection.first(
                "DELETE FROM device WHERE device_id = \(deviceID) AND tenant_id = \(tenant) RETURNING imei",
                as: String.self,
                logger: logger
            )
        else { throw FleetRollback(CloudServerRules.unknownDevice) }
        let detail = "imei \(imei)" + (owner.map { "; was bound to \($0.0) in \($0.1)" } ?? "; was not bound")
        try await context.event("deleted", device: deviceID, detail: detail)
        return try CloudJSON.string(
            CloudAPI.DeviceChangeResult(deviceID: deviceID, status: "deleted", at: context.now, device: nil)
        )
    }

    /// Refuses (2010) a device the tenant does not have.
    private static func ensureDevice(_ deviceID: String, _ context: FleetMutationContext) async throws {
        let known = try await context.connection.run(
            "SELECT 1 FROM device WHERE device_id = \(deviceID) AND tenant_id = \(context.principal.tenant)",
            logger: context.logger
        )
        guard known == 1 else { throw FleetRollback(CloudServerRules.unknownDevice) }
    }

    private static func changeResult(
        _ deviceID: String,
        status: String,
        _ context: FleetMutationContext
    ) async throws
        -> String
    {
        let device = try await devices(
            context.connection,
            tenant: context.principal.tenant,
            ids: [deviceID],
            logger: context.logger
        ).first
        return try CloudJSON.string(
            CloudAPI.DeviceChangeResult(deviceID: deviceID, status: status, at: context.now, device: device)
        )
    }
}
