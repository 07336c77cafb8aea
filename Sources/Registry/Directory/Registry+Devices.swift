import DeviceIdentity
import Foundation
import GRDB
import NBGWCore

extension Registry {
    /// The outcome of
    /// ``Directory-swift.struct/recordRegistration(_:deviceID:labelCode:credential:minted:completing:)``.
    public struct Registration: Sendable, Equatable {
        public var device: DeviceRecord
        /// True when this call created the record; false when the IMEI was already registered.
        public var created: Bool
        /// Identity fields that changed on a repeat registration (a swapped SIM, new firmware).
        public var changedFields: [String]
    }

    /// The `register` outbox row a registration answers, marked done in the same transaction.
    public struct OutboxCompletion: Sendable, Equatable {
        public var outboxID: Int64
        /// The lease owner that claimed the row.
        public var owner: String
        /// The cloud's answer, as JSON, kept with the row.
        public var result: String

        public init(outboxID: Int64, owner: String, result: String) {
            self.outboxID = outboxID
            self.owner = owner
            self.result = result
        }
    }
}

extension Registry.Directory {
    /// Records a module under the ids its cloud answered, idempotent by IMEI: the first call stores
    /// it; later calls keep the device id and update identity fields that changed (a new SIM, new
    /// firmware). The one way a registration reaches the store, for every cloud.
    ///
    /// - Parameters:
    ///   - credential: what the cloud issued to the module (a thing's access token), kept with the
    ///     module's secret (``moduleCredential(deviceID:)``); nil keeps what is stored.
    ///   - minted: the ids were minted for this call (the embedded cloud), not assigned by a remote
    ///     cloud. Minted ids are a proposal: when the IMEI is already stored, its stored ids win;
    ///     when another module holds them, the answer is nil and the caller mints again.
    ///   - completing: the `register` outbox row this answers, marked done in the same transaction.
    /// - Returns: the stored module, or nil when minted ids are taken.
    /// - Throws: `INTERNAL_ERROR` when a remote cloud's ids disagree with the store (the IMEI stored
    ///   under another device id, or the device id under another IMEI; nothing changes);
    ///   `STORE_UNAVAILABLE` when the outbox row's claim was lost meanwhile.
    public func recordRegistration(
        _ identity: ModuleIdentity,
        deviceID: DeviceID,
        labelCode: String,
        credential: String? = nil,
        minted: Bool,
        completing outbox: Registry.OutboxCompletion? = nil
    ) throws(NBGWError) -> Registry.Registration? {
        let now = registry.nowMillis()
        return try registry.write { db in
            guard
                let registration = try Registry.storeRegistration(
                    db,
                    identity,
                    deviceID: deviceID,
                    labelCode: labelCode,
                    minted: minted,
                    now: now
                )
            else { return nil }
            if let credential {
                try registry.storeCloudCredential(db, imei: identity.imei.digits, credential: credential, now: now)
            }
            if let outbox {
                guard
                    try Registry.markDone(db, id: outbox.outboxID, owner: outbox.owner, result: outbox.result, now: now)
                else {
                    throw NBGWError(
                        .storeUnavailable,
                        "outbox row #\(outbox.outboxID) was claimed by another sender while the cloud answered; it "
                            + "will record the registration itself"
                    )
                }
            }
            return registration
        }
    }

    /// The device registered as `id`, nil when there is none.
    public func device(id: String) throws(NBGWError) -> DeviceRecord? {
        try registry.read { db in try Registry.fetchDevice(db, column: .deviceID, value: id) }
    }

    /// The device registered with IMEI `imei`, nil when there is none.
    public func device(imei: String) throws(NBGWError) -> DeviceRecord? {
        try registry.read { db in try Registry.fetchDevice(db, column: .imei, value: imei) }
    }

    /// The device whose label carries `labelCode`, nil when there is none.
    public func device(labelCode: String) throws(NBGWError) -> DeviceRecord? {
        try registry.read { db in try Registry.fetchDevice(db, column: .labelCode, value: labelCode) }
    }

    /// Registered devices by device id, `limit` at a time after `afterDeviceID` (keyset paging).
    public func devices(limit: Int = 1000, after afterDeviceID: String = "") throws(NBGWError) -> [DeviceRecord] {
        try registry.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM device WHERE device_id > ? ORDER BY device_id LIMIT ?",
                arguments: [afterDeviceID, limit]
            ).map(DeviceRecord.init)
        }
    }
}

extension Registry {
    /// Inserts or updates a module inside the caller's transaction (see
    /// ``Directory-swift.struct/recordRegistration(_:deviceID:labelCode:credential:minted:completing:)``).
    static func storeRegistration(
        _ db: Database,
        _ identity: ModuleIdentity,
        deviceID: DeviceID,
        labelCode: String,
        minted: Bool,
        now: Int64
    ) throws -> Registration? {
        let via = minted ? "" : "; cloud"
        if let existing = try fetchDevice(db, column: .imei, value: identity.imei.digits) {
            guard minted || existing.deviceID == deviceID.rawValue else {
                throw NBGWError(
                    .internalError,
                    "IMEI \(identity.imei) is stored locally as device \(existing.deviceID) but the cloud registered "
                        + "it as \(deviceID); the local store and the cloud disagree. Check `nbgw cloud sync --check` "
                        + "and keep one of the two ids"
                )
            }
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
                try appendAudit(
                    db,
                    at: now,
                    event: "register_update",
                    deviceID: existing.deviceID,
                    imei: existing.imei,
                    detail: "changed: \(changed.joined(separator: ","))" + via
                )
            }
            return Registration(device: updated, created: false, changedFields: changed)
        }
        if let clash = try Row.fetchOne(
            db,
            sql: "SELECT imei FROM device WHERE device_id = ? OR label_code = ? LIMIT 1",
            arguments: [deviceID.rawValue, labelCode]
        ) {
            // Why minted ids may clash at all: 18 random characters make it negligible, but the
            // UNIQUE constraints would refuse the insert; the caller mints again.
            if minted { return nil }
            let imei: String = clash["imei"]
            throw NBGWError(
                .internalError,
                "the cloud registered IMEI \(identity.imei) as device \(deviceID) (label code \(labelCode)), ids "
                    + "stored locally for IMEI \(imei); the local store and the cloud disagree. Check `nbgw cloud "
                    + "sync --check`"
            )
        }
        try db.execute(
            sql: """
                INSERT INTO device (device_id, imei, imsi, iccid, manufacturer, model, firmware, product_id,
                    label_code, registered_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                deviceID.rawValue, identity.imei.digits, identity.imsi?.digits, identity.iccid?.value,
                identity.manufacturer, identity.model, identity.firmware, identity.productID, labelCode, now, now,
            ]
        )
        let product = identity.productID.map { "product=\($0)" }
        let detail = minted ? product : (product.map { $0 + "; " } ?? "") + "cloud"
        try appendAudit(
            db,
            at: now,
            event: "register",
            deviceID: deviceID.rawValue,
            imei: identity.imei.digits,
            detail: detail
        )
        let record = try fetchDevice(db, column: .imei, value: identity.imei.digits)!
        return Registration(device: record, created: true, changedFields: [])
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
