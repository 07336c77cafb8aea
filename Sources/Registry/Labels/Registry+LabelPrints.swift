import Foundation
import GRDB
import NBGWCore

extension Registry {
    /// The labels made for modules (`label_print`, migration v10, append-only) and which modules
    /// a label run selects. Reached as `registry.labels`.
    public struct Labels: Sendable {
        let registry: Registry
    }

    /// The label print trail (``Labels``).
    public var labels: Labels { Labels(registry: self) }
}

extension Registry {
    /// Which modules `nbgw labels` makes labels for.
    public enum LabelSelection: Sendable, Equatable {
        /// Every registered module.
        case all
        /// Modules no label was made for yet.
        case unprinted
        /// Modules registered at or after the date.
        case registeredSince(Date)
        /// The modules named, by device id or IMEI, in the order given.
        case devices([String])
    }

}

extension Registry.Labels {
    /// The modules a selection names, by device id (the order given for ``Registry.LabelSelection/devices(_:)``).
    ///
    /// - Throws: `UNKNOWN_DEVICE` naming the first device id or IMEI the store does not hold.
    public func devices(_ selection: Registry.LabelSelection) throws(NBGWError) -> [DeviceRecord] {
        switch selection {
        case .devices(let keys):
            var records: [DeviceRecord] = []
            for key in keys {
                var found = try registry.directory.device(id: key)
                if found == nil { found = try registry.directory.device(imei: key) }
                guard let record = found else {
                    throw NBGWError(
                        .unknownDevice,
                        "no device with id or IMEI \(key.escapedForDisplay()); list them with `nbgw devices list`"
                    )
                }
                if !records.contains(where: { $0.deviceID == record.deviceID }) { records.append(record) }
            }
            return records
        case .all:
            return try registry.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM device ORDER BY device_id").map(DeviceRecord.init)
            }
        case .unprinted:
            return try registry.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM device d
                        WHERE NOT EXISTS (SELECT 1 FROM label_print p WHERE p.device_row = d.id)
                        ORDER BY device_id
                        """
                ).map(DeviceRecord.init)
            }
        case .registeredSince(let date):
            return try registry.read { db in
                try Row.fetchAll(
                    db,
                    sql: "SELECT * FROM device WHERE registered_at >= ? ORDER BY device_id",
                    arguments: [Int64((date.timeIntervalSince1970 * 1000).rounded())]
                ).map(DeviceRecord.init)
            }
        }
    }

    /// Records that labels were made for these modules, in one transaction.
    ///
    /// - Parameters:
    ///   - format: `png`, `svg`, `pdf` or `zpl`.
    ///   - destination: the file each went to (a sheet: the same file for all); nil for standard output.
    ///   - source: `cli` or `daemon`.
    public func recordPrints(
        _ prints: [(deviceID: String, destination: String?)],
        format: String,
        source: String,
        operator: String? = nil
    ) throws(NBGWError) {
        let now = registry.nowMillis()
        try registry.write { db in
            for entry in prints {
                try db.execute(
                    sql: """
                        INSERT INTO label_print (device_row, printed_at, format, destination, source, operator)
                        SELECT id, ?, ?, ?, ?, ? FROM device WHERE device_id = ?
                        """,
                    arguments: [now, format, entry.destination, source, `operator`, entry.deviceID]
                )
                guard db.changesCount == 1 else {
                    throw NBGWError(
                        .unknownDevice,
                        "no device \(entry.deviceID.escapedForDisplay()) to record a label for"
                    )
                }
            }
        }
    }

    /// The labels made for a module, oldest first.
    public func prints(deviceID: String) throws(NBGWError) -> [LabelPrintRecord] {
        try registry.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT d.device_id, p.printed_at, p.format, p.destination, p.source, p.operator
                    FROM label_print p JOIN device d ON d.id = p.device_row
                    WHERE d.device_id = ? ORDER BY p.id
                    """,
                arguments: [deviceID]
            ).map { row in
                LabelPrintRecord(
                    deviceID: row["device_id"],
                    printedAt: Date(millis: row["printed_at"]),
                    format: row["format"],
                    destination: row["destination"],
                    source: row["source"],
                    operator: row["operator"]
                )
            }
        }
    }
}
