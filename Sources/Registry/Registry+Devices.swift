import DeviceIdentity
import Foundation
import GRDB
import Pairing

extension Registry {
    /// The outcome of ``registerDevice(_:mint:)``.
    public struct Registration: Sendable, Equatable {
        public var device: DeviceRecord
        /// True when this call created the record; false when the IMEI was already registered.
        public var created: Bool
        /// Identity fields that changed on a repeat registration (a swapped SIM, new firmware).
        public var changedFields: [String]
    }

    /// Registers a module, idempotent by IMEI: the first call stores it under the id and label code
    /// `mint` returns; later calls return the same record, updating identity fields that changed
    /// (a new SIM, new firmware) without ever changing the device id.
    public func registerDevice(
        _ identity: ModuleIdentity,
        mint: @Sendable () -> (deviceID: DeviceID, labelCode: String)
    ) throws(NBGWError) -> Registration {
        let now = nowMillis()
        return try write { db in
            if let existing = try Registry.fetchDevice(db, column: .imei, value: identity.imei.digits) {
                var changed: [String] = []
                func differs(_ new: String?, _ old: String?, _ name: String) -> String? {
                    guard let new, new != old else { return old }
                    changed.append(name)
                    return new
                }
                var updated = existing
                updated.imsi = differs(identity.imsi?.digits, existing.imsi, "imsi")
                updated.iccid = differs(identity.iccid?.value, existing.iccid, "iccid")
                updated.manufacturer = differs(identity.manufacturer, existing.manufacturer, "manufacturer")
                updated.model = differs(identity.model, existing.model, "model")
                updated.firmware = differs(identity.firmware, existing.firmware, "firmware")
                updated.productID = differs(identity.productID, existing.productID, "product")
                if !changed.isEmpty {
                    updated.updatedAt = Date(millis: now)
                    try db.execute(
                        sql: """
                            UPDATE device SET imsi = ?, iccid = ?, manufacturer = ?, model = ?, firmware = ?,
                                product_id = ?, updated_at = ? WHERE imei = ?
                            """,
                        arguments: [
                            updated.imsi, updated.iccid, updated.manufacturer, updated.model, updated.firmware,
                            updated.productID, now, updated.imei,
                        ]
                    )
                    try Registry.appendAudit(
                        db,
                        at: now,
                        event: "register_update",
                        deviceID: existing.deviceID,
                        imei: existing.imei,
                        detail: "changed: \(changed.joined(separator: ","))"
                    )
                }
                return Registration(device: updated, created: false, changedFields: changed)
            }
            // Why a loop: the minted id or label code could, with negligible probability, collide
            // with an existing one; the UNIQUE constraints catch it and we mint again.
            for _ in 0..<8 {
                let (deviceID, labelCode) = mint()
                let clash = try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM device WHERE device_id = ? OR label_code = ?)",
                    arguments: [deviceID.rawValue, labelCode]
                )
                if clash == true { continue }
                try db.execute(
                    sql: """
                        INSERT INTO device (device_id, imei, imsi, iccid, manufacturer, model, firmware, product_id,
                            label_code, registered_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        deviceID.rawValue, identity.imei.digits, identity.imsi?.digits, identity.iccid?.value,
                        identity.manufacturer, identity.model, identity.firmware, identity.productID, labelCode, now,
                        now,
                    ]
                )
                try Registry.appendAudit(
                    db,
                    at: now,
                    event: "register",
                    deviceID: deviceID.rawValue,
                    imei: identity.imei.digits,
                    detail: identity.productID.map { "product=\($0)" }
                )
                let record = try Registry.fetchDevice(db, column: .imei, value: identity.imei.digits)!
                return Registration(device: record, created: true, changedFields: [])
            }
            throw NBGWError(.internalError, "could not mint a unique device id for IMEI \(identity.imei)")
        }
    }

    public func device(id: String) throws(NBGWError) -> DeviceRecord? {
        try read { db in try Registry.fetchDevice(db, column: .deviceID, value: id) }
    }

    public func device(imei: String) throws(NBGWError) -> DeviceRecord? {
        try read { db in try Registry.fetchDevice(db, column: .imei, value: imei) }
    }

    public func device(labelCode: String) throws(NBGWError) -> DeviceRecord? {
        try read { db in try Registry.fetchDevice(db, column: .labelCode, value: labelCode) }
    }

    /// Registered devices by device id, `limit` at a time after `afterDeviceID` (keyset paging).
    public func devices(limit: Int = 1000, after afterDeviceID: String = "") throws(NBGWError) -> [DeviceRecord] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM device WHERE device_id > ? ORDER BY device_id LIMIT ?",
                arguments: [afterDeviceID, limit]
            ).map(DeviceRecord.init)
        }
    }

    enum DeviceColumn: String {
        case deviceID = "device_id"
        case imei
        case labelCode = "label_code"
    }

    static func fetchDevice(_ db: Database, column: DeviceColumn, value: String) throws -> DeviceRecord? {
        // The column name comes from the enum above, never from input; the value is bound.
        try Row.fetchOne(db, sql: "SELECT * FROM device WHERE \(column.rawValue) = ?", arguments: [value])
            .map(DeviceRecord.init)
    }
}

extension DeviceRecord {
    init(row: Row) {
        self.init(
            deviceID: row["device_id"],
            imei: row["imei"],
            imsi: row["imsi"],
            iccid: row["iccid"],
            manufacturer: row["manufacturer"],
            model: row["model"],
            firmware: row["firmware"],
            productID: row["product_id"],
            labelCode: row["label_code"],
            registeredAt: Date(millis: row["registered_at"]),
            updatedAt: Date(millis: row["updated_at"])
        )
    }
}
