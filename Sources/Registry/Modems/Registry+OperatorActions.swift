import Foundation
import GRDB
import NBGWCore

/// What an operator did to a modem through the daemon (`nbgw at`, `nbgw modem reset|reprobe|release|resume`),
/// and the SIM PINs the daemon entered: each one a row of the append-only audit log (migration v8).
extension Registry {
    /// The audit events of the operator's actions on modems.
    public enum ModemActionEvent: String, Sendable, CaseIterable {
        /// An AT command sent on the modem's session (`detail`: the command, secrets redacted).
        case at = "modem_at"
        case reset = "modem_reset"
        case reprobe = "modem_reprobe"
        case release = "modem_release"
        case resume = "modem_resume"
        /// An action refused (`code` says why: `COMMAND_REFUSED`, `MODEM_BUSY`, `UNKNOWN_MODEM`).
        case refused = "modem_refused"
    }

}

extension Registry.Modems {
    /// Appends one operator action to the audit log.
    ///
    /// - Parameters:
    ///   - operator: who asked (the control socket peer's user name).
    ///   - code: `OK`, or the error code the action ended with.
    ///   - detail: the port, and for `at` the command (the caller redacts secrets).
    public func recordAction(
        _ event: Registry.ModemActionEvent,
        imei: String?,
        deviceID: String?,
        operator: String,
        code: String,
        detail: String
    ) async throws(NBGWError) {
        let at = registry.nowMillis()
        try await registry.modemWrite { db in
            try Registry.appendAudit(
                db,
                at: at,
                event: event.rawValue,
                deviceID: deviceID,
                imei: imei,
                source: "control",
                operator: String(`operator`.prefix(128)),
                code: String(code.prefix(64)),
                detail: String(detail.prefix(1024))
            )
        }
    }

    /// The daemon entered a configured PIN (`code`: `OK` or the error it got); the PIN itself is
    /// never written anywhere.
    public func recordSIMPINEntry(imei: String, deviceID: String?, code: String, detail: String) async throws(NBGWError)
    {
        let at = registry.nowMillis()
        try await registry.modemWrite { db in
            try Registry.appendAudit(
                db,
                at: at,
                event: "sim_pin",
                deviceID: deviceID,
                imei: imei,
                source: "daemon",
                code: String(code.prefix(64)),
                detail: String(detail.prefix(1024))
            )
        }
    }

    /// When the SIM `subject` (its ICCID, or `imei:<IMEI>`) refused the PIN whose digest is
    /// `pinDigest` (SHA-256 of `subject:PIN`), or nil when it never did.
    public func simPINRejection(subject: String, pinDigest: [UInt8]) throws(NBGWError) -> Date? {
        try registry.read { db in
            try Int64.fetchOne(
                db,
                sql: "SELECT rejected_at FROM sim_pin_rejection WHERE subject = ? AND pin_sha256 = ?",
                arguments: [subject, Data(pinDigest)]
            ).map(Date.init(millis:))
        }
    }

    /// Records that SIM `subject` refused the PIN of `pinDigest`, so it is never entered again.
    public func recordSIMPINRejection(subject: String, pinDigest: [UInt8]) async throws(NBGWError) {
        let at = registry.nowMillis()
        try await registry.modemWrite { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO sim_pin_rejection (subject, pin_sha256, rejected_at) VALUES (?, ?, ?)",
                arguments: [subject, Data(pinDigest), at]
            )
        }
    }
}
