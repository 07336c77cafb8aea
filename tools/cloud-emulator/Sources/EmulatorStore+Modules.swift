import CloudServer
import GRDB
import TuyaCloud

extension EmulatorStore {
    /// Registers a module, idempotent by IMEI: a known IMEI keeps its device id and label code and
    /// gets its changed identity fields updated; a new one gets the proposed ids when they are
    /// valid and free, else freshly minted ones.
    static func register(
        _ db: Database,
        _ request: CloudAPI.RegisterRequest,
        labelBase: String,
        key: String?,
        now: Int64
    ) throws -> Result<CloudAPI.RegisterResult, CloudServerFailure> {
        if let problem = CloudServerRules.problem(in: request) { return .failure(problem) }
        if let existing = try Row.fetchOne(db, sql: "SELECT * FROM device WHERE imei = ?", arguments: [request.imei]) {
            var changed: [String] = []
            let pairs: [(String, String, String?)] = [
                ("imsi", "imsi", request.imsi), ("iccid", "iccid", request.iccid),
                ("manufacturer", "manufacturer", request.manufacturer), ("model", "model", request.model),
                ("firmware", "firmware", request.firmware), ("product", "product_id", request.productID),
            ]
            for (name, column, value) in pairs {
                guard let value, value != existing[column] as String? else { continue }
                changed.append(name)
                // The column name comes from the fixed list above; the value is bound.
                try db.execute(
                    sql: "UPDATE device SET \(column) = ?, updated_at = ? WHERE imei = ?",
                    arguments: [value, now, request.imei]
                )
            }
            let deviceID: String = existing["device_id"]
            if !changed.isEmpty {
                try recordEffect(db, operation: "register_update", subject: deviceID, key: key, at: now)
            }
            let code: String = existing["label_code"]
            return .success(
                CloudAPI.RegisterResult(
                    deviceID: deviceID,
                    labelCode: code,
                    qrcode: labelBase + code,
                    created: false,
                    changedFields: changed
                )
            )
        }
        var deviceID = CloudServerRules.acceptableDeviceID(request.deviceID)
        if let proposed = deviceID, try exists(db, "SELECT 1 FROM device WHERE device_id = ?", proposed) {
            deviceID = nil
        }
        var labelCode = CloudServerRules.acceptableLabelCode(request.labelCode)
        if let proposed = labelCode, try exists(db, "SELECT 1 FROM device WHERE label_code = ?", proposed) {
            labelCode = nil
        }
        // Why a loop: a minted id could collide with an existing one, with negligible probability.
        for _ in 0..<8 {
            let id = deviceID ?? CloudServerRules.mintDeviceID()
            let code = labelCode ?? CloudServerRules.mintLabelCode()
            if try exists(db, "SELECT 1 FROM device WHERE device_id = ?", id)
                || exists(db, "SELECT 1 FROM device WHERE label_code = ?", code)
            {
                deviceID = nil
                labelCode = nil
                continue
            }
            try db.execute(
                sql: """
                    INSERT INTO device (device_id, imei, imsi, iccid, manufacturer, model, firmware, product_id,
                        label_code, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, request.imei, request.imsi, request.iccid, request.manufacturer, request.model,
                    request.firmware, request.productID, code, now, now,
                ]
            )
            try recordEffect(db, operation: "register", subject: id, key: key, at: now)
            return .success(
                CloudAPI.RegisterResult(
                    deviceID: id,
                    labelCode: code,
                    qrcode: labelBase + code,
                    created: true,
                    changedFields: []
                )
            )
        }
        return .failure(CloudServerFailure(TuyaErrorCode.systemError, "system error: could not mint a device id"))
    }

    static func modules(_ db: Database, after: String, limit: Int) throws -> CloudAPI.Page<CloudAPI.Module> {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT device_id, imei, label_code, product_id FROM device
                WHERE device_id > ? ORDER BY device_id LIMIT ?
                """,
            arguments: [after, limit + 1]
        )
        let list = rows.prefix(limit).map { row in
            CloudAPI.Module(
                deviceID: row["device_id"],
                imei: row["imei"],
                labelCode: row["label_code"],
                productID: row["product_id"]
            )
        }
        return CloudAPI.Page(list: Array(list), hasMore: rows.count > limit, lastRowKey: list.last?.deviceID)
    }

    static func exists(_ db: Database, _ sql: String, _ value: String) throws -> Bool {
        try Row.fetchOne(db, sql: sql, arguments: [value]) != nil
    }
}
