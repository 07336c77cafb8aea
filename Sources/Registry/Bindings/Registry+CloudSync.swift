import DeviceIdentity
import Foundation
import GRDB
import NBGWCore
import Pairing

extension Registry {
    /// A local change and the outbox row that carries it to the cloud, committed together.
    public struct SyncedChange<Change: Sendable & Equatable>: Sendable, Equatable {
        public var change: Change
        /// Nil when nothing needs to reach the cloud (the bind changed nothing).
        public var outboxEntry: OutboxEntry?
    }
}

extension Registry.Bindings {
    /// ``bind(_:timeout:)`` plus, when `queueForCloud` and the bind changed something, the cloud
    /// `bind` outbox row (``OutboxPayload/bind(_:)``) in the same IMMEDIATE transaction. Either
    /// both commit or neither does, so a crash right after the commit still leaves the cloud's
    /// work queued.
    public func bind(
        _ command: BindCommand,
        timeout: Duration = BindingRules.defaultActivationTimeout,
        queueForCloud: Bool
    ) throws(NBGWError) -> Registry.SyncedChange<BindOutcome> {
        do {
            return try registry.withBusyTimeout(timeout) { db in
                var result: Registry.SyncedChange<BindOutcome>?
                try db.inTransaction(.immediate) {
                    // `now` is read once the write lock is held: waiting for the lock must not let an expired token through.
                    let now = registry.nowMillis()
                    var owners = OwnerFacts()
                    let outcome = try Registry.bindRules(db, command, now: now, owners: &owners)
                    let entry = queueForCloud ? try Registry.queueBind(db, outcome, now: now) : nil
                    result = Registry.SyncedChange(change: outcome, outboxEntry: entry)
                    return .commit
                }
                return result!
            }
        } catch let error as NBGWError {
            if error.code != .timeout && error.code != .storeUnavailable {
                try? registry.recordRejection(command, error)
            }
            throw error
        } catch {
            throw Registry.storeError(error, path: registry.path)
        }
    }

    /// ``unbind(deviceID:source:operator:)`` plus, when `queueForCloud`, the cloud `unbind` outbox
    /// row (``OutboxPayload/unbind(_:)``) in the same transaction.
    public func unbind(
        deviceID: String,
        source: BindingSource,
        operator: String? = nil,
        queueForCloud: Bool
    ) throws(NBGWError) -> Registry.SyncedChange<BindingRecord> {
        let now = registry.nowMillis()
        return try registry.write { db in
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
            guard queueForCloud else { return Registry.SyncedChange(change: binding, outboxEntry: nil) }
            let payload = OutboxPayload.unbind(
                .init(deviceID: binding.deviceID, account: binding.account, home: binding.home)
            )
            let id = try Registry.insertOutbox(db, Registry.OutboxRequest(payload), now: now)
            return Registry.SyncedChange(change: binding, outboxEntry: try Registry.fetchOutbox(db, id: id))
        }
    }
}

extension Registry {
    /// The cloud `bind` row for a bind that changed something, inside the caller's transaction
    /// (nil for `unchanged`: the cloud already has it, or its row is queued).
    static func queueBind(_ db: Database, _ outcome: BindOutcome, now: Int64) throws -> OutboxEntry? {
        guard outcome.status == .bound else { return nil }
        let binding = outcome.binding
        let payload = OutboxPayload.bind(
            .init(deviceID: binding.deviceID, account: binding.account, home: binding.home)
        )
        return try fetchOutbox(db, id: insertOutbox(db, OutboxRequest(payload), now: now))
    }
}
