import Foundation
import Logging
import Registry

extension ModemSupervisor {
    /// Moves to `state` with `reason` (nil: the state says it all): one store write (with
    /// `change`), the directory (snapshot, gauges, ``Gateway/stateChanges()``) and one log line.
    func transition(
        to state: ModemState,
        _ change: ModemRecord.Change = ModemRecord.Change(),
        reason: ModemReason? = nil,
        failure: ModemFailure? = nil,
        retryIn: Duration? = nil
    ) async {
        var change = change
        change.state = state.rawValue
        change.reason = reason.map { ModemRecord.Reason(code: $0.code, message: $0.message) }
        // The write runs in a task of its own: a cancelled task's store write is refused, and this
        // task can be cancelled at any moment, e.g. by the unplug event that follows the port's
        // own hang-up between seeing the port close and recording `absent` (seen in CI: the row
        // stayed `ready` for a module that was gone).
        let registry = context.registry
        let path = self.path
        let written = await Task { () async -> Result<ModemRecord?, any Error> in
            do {
                return .success(try await registry.modems.update(port: path, change))
            } catch {
                return .failure(error)
            }
        }.value
        switch written {
        case .success(nil):
            log(.warning, "the store has no present row for the port; state \(state.rawValue) not recorded")
        case .failure(let error):
            log(.warning, "cannot record state \(state.rawValue) in the store: \(error)")
        case .success:
            break
        }
        announce(state, reason: reason, failure: failure, retryIn: retryIn)
    }

    /// Updates the reason of the current state (a `NO_SERVICE` message with a newer signal) in the
    /// store and the directory, without a log line.
    func updateReason(_ reason: ModemReason, _ change: ModemRecord.Change = ModemRecord.Change()) async {
        var change = change
        change.reason = ModemRecord.Reason(code: reason.code, message: reason.message)
        let registry = context.registry
        let path = self.path
        _ = await Task { try? await registry.modems.update(port: path, change) }.value
        let (imei, deviceID, state) = status.withLock { status in
            status.reason = reason
            return (status.imei, status.deviceID, status.state)
        }
        context.directory.update(
            ModemStateChange(port: path, imei: imei, state: state, reason: reason, deviceID: deviceID),
            id: entry.id
        )
    }

    /// Records `state` in the directory and logs it (the store write is the caller's).
    func announce(
        _ state: ModemState,
        reason: ModemReason? = nil,
        failure: ModemFailure? = nil,
        retryIn: Duration? = nil
    ) {
        let (imei, deviceID) = status.withLock { status in
            status.state = state
            status.reason = reason
            return (status.imei, status.deviceID)
        }
        context.directory.update(
            ModemStateChange(
                port: path,
                imei: imei,
                state: state,
                reason: reason,
                deviceID: deviceID,
                failure: failure
            ),
            id: entry.id
        )
        var metadata: Logger.Metadata = ["state": "\(state.rawValue)"]
        if let deviceID { metadata["device_id"] = "\(deviceID)" }
        if let reason, reason.code != failure?.code.rawValue {
            metadata["reason_code"] = "\(reason.code)"
            metadata["reason"] = "\(reason.message)"
        }
        if let failure {
            metadata["error_code"] = "\(failure.code.rawValue)"
            metadata["error"] = "\(failure.message)"
        }
        if let retryIn { metadata["retry_in_s"] = "\(String(format: "%.1f", retryIn.seconds))" }
        // What needs an operator is a warning (`journalctl -p warning` lists it): a failure, and a
        // module waiting or locked for a reason only someone on site fixes. A SIM still starting
        // and a radio the config keeps off are not.
        let level: Logger.Level =
            switch state {
            case .failed: .warning
            case .waiting, .locked:
                [ModemReasonCode.simBusy.rawValue, ModemReasonCode.radioOff.rawValue].contains(reason?.code)
                    ? .notice : .warning
            default: .info
            }
        log(level, "modem \(state.rawValue)", metadata)
    }

    /// The IMEI is known and recorded while the probe goes on: the directory (and
    /// ``Gateway/stateChanges()``) learn it with the state still `probing`; a debug log line.
    func announceIdentified() {
        let (imei, deviceID, state, reason) = status.withLock { ($0.imei, $0.deviceID, $0.state, $0.reason) }
        context.directory.update(
            ModemStateChange(port: path, imei: imei, state: state, reason: reason, deviceID: deviceID),
            id: entry.id
        )
        log(.debug, "modem identified", ["state": "\(state.rawValue)"])
    }

    /// Logs with the port's metadata (`port`, `imei` once known).
    func log(_ level: Logger.Level, _ message: String, _ extra: Logger.Metadata = [:]) {
        let imei = status.withLock { $0.imei }
        var metadata: Logger.Metadata = ["port": "\(path)"]
        if let imei { metadata["imei"] = "\(imei)" }
        metadata.merge(extra) { _, new in new }
        context.logger.log(level: level, "\(message)", metadata: metadata)
    }
}
