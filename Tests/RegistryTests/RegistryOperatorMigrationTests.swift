import Foundation
import GRDB
import Testing

@testable import Registry

/// Migration v8 on a store written by v7: the modem and audit tables rebuilt with the new states,
/// reasons and events, nothing lost; the schema refuses what it refused before.
@Suite("Registry: migration v8 adds the operator's states, reasons and audit events")
struct RegistryOperatorMigrationTests {
    @Test("a v7 store keeps its modem rows and audit rows; the new states and events are accepted, others are not")
    func migrates() async throws {
        let store = try TestStore()
        let queue = try DatabaseQueue(path: store.path)
        try Registry.migrator.migrate(queue, upTo: "v7-lean-bind")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO modem (port, imei, state, state_since, first_seen, last_seen, updated_at, error_code, error_message)
                        VALUES ('/dev/ttyUSB2', '490154203237518', 'failed', 1, 1, 2, 2, 'REGISTRATION_DENIED', 'denied');
                    INSERT INTO audit_log (at, event, imei, source, operator) VALUES (5, 'register', '490154203237518', 'daemon', 'op');
                    """
            )
        }
        try queue.close()
        let registry = try Registry(path: store.path)
        let row = try #require(try registry.modems.find(imeiOrPort: "490154203237518"))
        #expect(row.state == "failed" && row.lastError?.code == "REGISTRATION_DENIED" && row.reason == nil)
        #expect(try registry.audit.entries().map(\.event) == ["register"])

        _ = try await registry.modems.update(
            port: "/dev/ttyUSB2",
            ModemRecord.Change(state: "locked", reason: .init(code: "SIM_PIN_REQUIRED", message: "give the PIN"))
        )
        let locked = try #require(try registry.modems.find(imeiOrPort: "/dev/ttyUSB2"))
        #expect(locked.state == "locked" && locked.reason == .init(code: "SIM_PIN_REQUIRED", message: "give the PIN"))
        _ = try await registry.modems.update(port: "/dev/ttyUSB2", ModemRecord.Change(state: "ready"))
        #expect(
            try registry.modems.find(imeiOrPort: "/dev/ttyUSB2")?.reason == nil,
            "a state without a reason clears it"
        )
        try await registry.modems.recordAction(
            .reset,
            imei: "490154203237518",
            deviceID: nil,
            operator: "alice",
            code: "OK",
            detail: "x"
        )
        #expect(try registry.audit.entries().last?.event == "modem_reset")

        let pool = try DatabaseQueue(path: store.path)
        #expect(throws: (any Error).self) {
            try pool.write { try $0.execute(sql: "UPDATE modem SET state = 'asleep'") }
        }
        #expect(throws: (any Error).self) {
            try pool.write { try $0.execute(sql: "UPDATE modem SET reason_code = 'X', reason_message = NULL") }
        }
        #expect(throws: (any Error).self) {
            try pool.write { try $0.execute(sql: "INSERT INTO audit_log (at, event) VALUES (1, 'modem_explode')") }
        }
        #expect(throws: (any Error).self) {
            try pool.write { try $0.execute(sql: "DELETE FROM audit_log") }
        }
    }

    @Test("a refused PIN is remembered by its SIM and digest only")
    func pinRejection() async throws {
        let store = try TestStore()
        let registry = try Registry(path: store.path)
        let digest = [UInt8](repeating: 7, count: 32)
        #expect(try registry.modems.simPINRejection(subject: "89882280666027595366", pinDigest: digest) == nil)
        try await registry.modems.recordSIMPINRejection(subject: "89882280666027595366", pinDigest: digest)
        #expect(try registry.modems.simPINRejection(subject: "89882280666027595366", pinDigest: digest) != nil)
        #expect(
            try registry.modems.simPINRejection(
                subject: "89882280666027595366",
                pinDigest: Array(digest.dropFirst()) + [8]
            )
                == nil
        )
    }
}
