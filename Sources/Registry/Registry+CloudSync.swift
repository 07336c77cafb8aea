import DeviceIdentity
import Foundation
import GRDB
import Pairing

extension Registry {
    /// A local change and the outbox row that carries it to the cloud, committed together.
    public struct SyncedChange<Change: Sendable & Equatable>: Sendable, Equatable {
        public var change: Change
        /// Nil when nothing needs to reach the cloud (the bind changed nothing).
        public var outboxEntry: OutboxEntry?
    }

    /// ``bind(_:timeout:)`` plus, in the same IMMEDIATE transaction, the outbox row `enqueue`
    /// returns for the outcome (nil: nothing to send, e.g. `unchanged`). Either both commit or
    /// neither does, so a crash right after the commit still leaves the cloud's work queued.
    public func bind(
        _ command: BindCommand,
        timeout: Duration = BindingRules.defaultActivationTimeout,
        enqueue: (BindOutcome) -> OutboxRequest?
    ) throws(NBGWError) -> SyncedChange<BindOutcome> {
        do {
            return try withBusyTimeout(timeout) { db in
                var result: SyncedChange<BindOutcome>?
                try db.inTransaction(.immediate) {
                    // `now` is read once the write lock is held: waiting for the lock must not let an expired token through.
                    let now = nowMillis()
                    var owners = OwnerFacts()
                    let outcome = try Registry.bindRules(db, command, now: now, owners: &owners)
                    var entry: OutboxEntry?
                    if let request = enqueue(outcome) {
                        entry = try Registry.fetchOutbox(db, id: Registry.insertOutbox(db, request, now: now))
                    }
                    result = SyncedChange(change: outcome, outboxEntry: entry)
                    return .commit
                }
                return result!
            }
        } catch let error as NBGWError {
            if error.code != .timeout && error.code != .storeUnavailable {
                try? recordRejection(command, error)
            }
            throw error
        } catch {
            throw Registry.storeError(error, path: path)
        }
    }

    /// ``unbind(deviceID:source:operator:)`` plus, in the same transaction, the outbox row
    /// `enqueue` returns for the removed binding.
    public func unbind(
        deviceID: String,
        source: BindingSource,
        operator: String? = nil,
        enqueue: (BindingRecord) -> OutboxRequest?
    ) throws(NBGWError) -> SyncedChange<BindingRecord> {
        let now = nowMillis()
        return try write { db in
            guard let binding = try Registry.fetchBindings(db, deviceID: deviceID, account: nil).first else {
                if try Registry.fetchDevice(db, column: .deviceID, value: deviceID) == nil {
                    throw NBGWError(.unknownDevice, "device \(deviceID.escapedForDisplay()) is not registered")
                }
                throw NBGWError(.notBound, "device \(deviceID) is not bound; nothing to unbind")
            }
            try db.execute(
                sql: "DELETE FROM binding WHERE device_row = (SELECT id FROM device WHERE device_id = ?)",
                arguments: [deviceID]
            )
            try Registry.appendAudit(
                db,
                at: now,
                event: "unbind",
                deviceID: deviceID,
                imei: binding.imei,
                account: binding.account,
                home: binding.home,
                source: source.rawValue,
                operator: `operator`
            )
            var entry: OutboxEntry?
            if let request = enqueue(binding) {
                entry = try Registry.fetchOutbox(db, id: Registry.insertOutbox(db, request, now: now))
            }
            return SyncedChange(change: binding, outboxEntry: entry)
        }
    }

    /// Records what the cloud answered to a claimed `register` row, in one transaction: the device
    /// is stored (or its changed identity fields updated) under the cloud's device id and label
    /// code, and the row is marked done. Replaying the same answer changes nothing.
    ///
    /// - Throws: `INTERNAL` when the IMEI is stored locally under another device id, or the device id
    ///   under another IMEI (the local store and the cloud disagree; nothing changes and the row stays
    ///   claimed for the caller to retire); `STORE_UNAVAILABLE` when the claim was lost meanwhile.
    public func completeCloudRegistration(
        outboxID: Int64,
        owner: String,
        identity: ModuleIdentity,
        deviceID: DeviceID,
        labelCode: String,
        result: String
    ) throws(NBGWError) -> Registration {
        let now = nowMillis()
        return try write { db in
            let registration = try Registry.upsertCloudDevice(
                db,
                identity: identity,
                deviceID: deviceID,
                labelCode: labelCode,
                now: now
            )
            guard try Registry.markDone(db, id: outboxID, owner: owner, result: result, now: now) else {
                throw NBGWError(
                    .storeUnavailable,
                    "outbox row #\(outboxID) was claimed by another sender while the cloud answered; it will "
                        + "record the registration itself"
                )
            }
            return registration
        }
    }

    /// Stores a module under the id the cloud gave it; updates changed identity fields of a known
    /// IMEI with the same id.
    static func upsertCloudDevice(
        _ db: Database,
        identity: ModuleIdentity,
        deviceID: DeviceID,
        labelCode: String,
        now: Int64
    ) throws -> Registration {
        if let existing = try fetchDevice(db, column: .imei, value: identity.imei.digits) {
            guard existing.deviceID == deviceID.rawValue else {
                throw NBGWError(
                    .internalError,
                    "IMEI \(identity.imei) is stored locally as device \(existing.deviceID) but the cloud registered "
                        + "it as \(deviceID); the local store and the cloud disagree. Check `nbgw cloud sync --check` "
                        + "and keep one of the two ids"
                )
            }
            var changed: [String] = []
            var updated = existing
            func take(_ new: String?, _ old: String?, _ name: String) -> String? {
                guard let new, new != old else { return old }
                changed.append(name)
                return new
            }
            updated.imsi = take(identity.imsi?.digits, existing.imsi, "imsi")
            updated.iccid = take(identity.iccid?.value, existing.iccid, "iccid")
            updated.manufacturer = take(identity.manufacturer, existing.manufacturer, "manufacturer")
            updated.model = take(identity.model, existing.model, "model")
            updated.firmware = take(identity.firmware, existing.firmware, "firmware")
            updated.productID = take(identity.productID, existing.productID, "product")
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
                    detail: "changed: \(changed.joined(separator: ",")); cloud"
                )
            }
            return Registration(device: updated, created: false, changedFields: changed)
        }
        if let clash = try fetchDevice(db, column: .deviceID, value: deviceID.rawValue) {
            throw NBGWError(
                .internalError,
                "the cloud registered IMEI \(identity.imei) as device \(deviceID), an id stored locally for IMEI "
                    + "\(clash.imei); the local store and the cloud disagree. Check `nbgw cloud sync --check`"
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
        try appendAudit(
            db,
            at: now,
            event: "register",
            deviceID: deviceID.rawValue,
            imei: identity.imei.digits,
            detail: (identity.productID.map { "product=\($0); " } ?? "") + "cloud"
        )
        let record = try fetchDevice(db, column: .imei, value: identity.imei.digits)!
        return Registration(device: record, created: true, changedFields: [])
    }
}
