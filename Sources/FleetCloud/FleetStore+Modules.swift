import CloudServer
import PostgresNIO
import TuyaCloud

extension FleetStore {
    /// Registers a module, add-or-find by IMEI across the fleet: a new IMEI is inserted with the
    /// proposed ids when free (else minted ones) in one `INSERT … ON CONFLICT DO NOTHING`; a known
    /// one of this tenant keeps its ids and gets its changed fields; one of another tenant (or not
    /// on this tenant's allow-list) is refused without saying which.
    static func register(_ request: CloudAPI.RegisterRequest, _ context: FleetMutationContext) async throws -> String {
        let (connection, logger, tenant, now) = (context.connection, context.logger, context.principal.tenant, context.now)
        let allowed = try await connection.first(
            """
            SELECT NOT t.imei_allow_list OR EXISTS (
                SELECT 1 FROM tenant_imei i WHERE i.tenant_id = t.id AND i.imei = \(request.imei))
            FROM tenant t WHERE t.id = \(tenant)
            """,
            as: Bool.self,
            logger: logger
        )
        guard allowed == true else { throw FleetRollback(FleetStore.imeiNotAvailable) }
        var deviceID = CloudServerRules.acceptableDeviceID(request.deviceID)
        var labelCode = CloudServerRules.acceptableLabelCode(request.labelCode)
        // Why a loop: a proposed or minted id may be taken; the IMEI decides whether it is ours.
        for _ in 0..<8 {
            let id = deviceID ?? CloudServerRules.mintDeviceID()
            let code = labelCode ?? CloudServerRules.mintLabelCode()
            let inserted = try await connection.run(
                """
                INSERT INTO device (imei, tenant_id, device_id, label_code, imsi, iccid, manufacturer, model, firmware,
                    product_id, registered_by, created_at, updated_at)
                VALUES (\(request.imei), \(tenant), \(id), \(code), \(request.imsi), \(request.iccid),
                    \(request.manufacturer), \(request.model), \(request.firmware), \(request.productID),
                    \(context.principal.gateway), \(now), \(now))
                ON CONFLICT DO NOTHING RETURNING 1
                """,
                logger: logger
            )
            if inserted == 1 {
                try await context.event("registered", device: id, detail: request.imei)
                return try CloudJSON.string(
                    CloudAPI.RegisterResult(
                        deviceID: id,
                        labelCode: code,
                        qrcode: context.settings.labelBase + code,
                        created: true,
                        changedFields: []
                    )
                )
            }
            if let json = try await registered(request, context) { return json }
            deviceID = nil
            labelCode = nil
        }
        throw FleetError("could not mint a free device id for IMEI \(request.imei) in 8 attempts")
    }

    /// The answer for an IMEI registered before (with its changed fields applied), nil when the
    /// IMEI is not registered (the insert met another unique key: a proposed id was taken).
    private static func registered(
        _ request: CloudAPI.RegisterRequest,
        _ context: FleetMutationContext
    ) async throws -> String? {
        let (connection, logger) = (context.connection, context.logger)
        // FOR UPDATE: two gateways updating the same module's fields at once apply one after the
        // other, each reporting what it changed.
        guard
            let row = try await connection.first(
                """
                SELECT tenant_id, device_id, label_code, imsi, iccid, manufacturer, model, firmware, product_id
                FROM device WHERE imei = \(request.imei) FOR UPDATE
                """,
                as: (String, String, String, String?, String?, String?, String?, String?, String?).self,
                logger: logger
            )
        else { return nil }
        guard row.0 == context.principal.tenant else {
            context.counters.conflict("imei_other_tenant")
            throw FleetRollback(FleetStore.imeiNotAvailable)
        }
        var changed: [String] = []
        for (name, old, new) in [
            ("imsi", row.3, request.imsi), ("iccid", row.4, request.iccid), ("manufacturer", row.5, request.manufacturer),
            ("model", row.6, request.model), ("firmware", row.7, request.firmware), ("product", row.8, request.productID),
        ] where new != nil && new != old {
            changed.append(name)
        }
        if !changed.isEmpty {
            try await connection.run(
                """
                UPDATE device SET imsi = coalesce(\(request.imsi), imsi), iccid = coalesce(\(request.iccid), iccid),
                    manufacturer = coalesce(\(request.manufacturer), manufacturer),
                    model = coalesce(\(request.model), model), firmware = coalesce(\(request.firmware), firmware),
                    product_id = coalesce(\(request.productID), product_id), updated_at = \(context.now)
                WHERE imei = \(request.imei)
                """,
                logger: logger
            )
            try await context.event("updated", device: row.1, detail: changed.joined(separator: ","))
        }
        return try CloudJSON.string(
            CloudAPI.RegisterResult(
                deviceID: row.1,
                labelCode: row.2,
                qrcode: context.settings.labelBase + row.2,
                created: false,
                changedFields: changed
            )
        )
    }

    /// The one answer for an IMEI this tenant may not register: registered by another tenant, or
    /// not on this tenant's allow-list. Why one: which IMEIs exist elsewhere is not this tenant's
    /// to learn (the anchors' Particle and The Things Industries threads).
    static let imeiNotAvailable = CloudServerFailure(
        TuyaErrorCode.permissionDenied,
        "permission denied: this IMEI is not available to this tenant (not on its allow-list, or registered "
            + "elsewhere); ask the fleet's operator"
    )
}
