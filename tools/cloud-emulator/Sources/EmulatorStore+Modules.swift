import DeviceIdentity
import GRDB
import NBGWCore
import Pairing
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
    ) throws -> Result<CloudAPI.RegisterResult, EmulatorFailure> {
        // Exactly as sent: the identity types trim whitespace, the profile does not.
        guard (try? IMEI(request.imei))?.digits == request.imei else {
            return .failure(
                .invalid("imei \(request.imei.escapedForDisplay()) is not 15 digits with a valid Luhn check digit")
            )
        }
        if let imsi = request.imsi, (try? IMSI(imsi))?.digits != imsi {
            return .failure(.invalid("imsi must be 6 to 15 digits"))
        }
        if let iccid = request.iccid, (try? ICCID(iccid))?.value != iccid.uppercased() {
            return .failure(.invalid("iccid must be 18 to 22 digits, optionally padded with F"))
        }
        for (name, value, limit) in [
            ("manufacturer", request.manufacturer, 64), ("model", request.model, 64),
            ("firmware", request.firmware, 128), ("product_id", request.productID, 64),
        ] {
            // Unicode code points, as JSON Schema's maxLength counts.
            if let value, value.isEmpty || value.unicodeScalars.count > limit {
                return .failure(.invalid("\(name) must be 1 to \(limit) characters"))
            }
            // Control characters never name a product: refused, and never stored (SQLite's
            // length() stops at a NUL, so the table's own check would fail as a 500).
            if let value, value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return .failure(.invalid("\(name) must not contain control characters"))
            }
        }
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
        var deviceID = request.deviceID.flatMap { try? DeviceID($0).rawValue }
        if let proposed = deviceID, try exists(db, "SELECT 1 FROM device WHERE device_id = ?", proposed) {
            deviceID = nil
        }
        var labelCode = request.labelCode.flatMap { code in
            (4...64).contains(code.utf8.count) && code.utf8.allSatisfy(isAlphanumeric) ? code : nil
        }
        if let proposed = labelCode, try exists(db, "SELECT 1 FROM device WHERE label_code = ?", proposed) {
            labelCode = nil
        }
        // Why a loop: a minted id could collide with an existing one, with negligible probability.
        for _ in 0..<8 {
            let id = deviceID ?? "nb" + randomCode(18, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789")
            let code = labelCode ?? randomCode(12, alphabet: "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
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
        return .failure(EmulatorFailure(TuyaErrorCode.systemError, "system error: could not mint a device id"))
    }

    /// The app SDK's QR parse (§1.1): labels this cloud issued resolve to the NB-IoT bind action.
    static func parseQR(
        _ db: Database,
        code: String,
        labelBase: String
    ) throws -> Result<
        CloudAPI.QRParseResult, EmulatorFailure
    > {
        let text = code.trimmingASCIISpaces
        guard text.lowercased().hasPrefix(labelBase.lowercased()) else {
            return .failure(
                EmulatorFailure(TuyaErrorCode.qrNotRecognized, "QR_PROTOCOL_NOT_RECOGNIZED: not a label of this cloud")
            )
        }
        var labelCode = String(text.dropFirst(labelBase.count))
        if let cut = labelCode.firstIndex(where: { $0 == "?" || $0 == "#" || $0 == "/" }) {
            labelCode = String(labelCode[..<cut])
        }
        guard
            let deviceID = try String.fetchOne(
                db,
                sql: "SELECT device_id FROM device WHERE label_code = ?",
                arguments: [labelCode]
            )
        else {
            return .failure(EmulatorFailure(TuyaErrorCode.deviceNotExist, "device not exist: unknown label code"))
        }
        return .success(
            CloudAPI.QRParseResult(
                actionName: BindingRules.nbBindActionName,
                actionData: CloudAPI.QRParseResult.ActionData(id: deviceID)
            )
        )
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

    /// A device id as the profile spells it: 1 to 64 of `A-Z a-z 0-9 _ . -`.
    static func isDeviceID(_ text: String) -> Bool {
        (try? DeviceID(text)) != nil
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

extension String {
    var trimmingASCIISpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\n" || first == "\r" {
            text = text.dropFirst()
        }
        while let last = text.last, last == " " || last == "\t" || last == "\n" || last == "\r" {
            text = text.dropLast()
        }
        return String(text)
    }
}
