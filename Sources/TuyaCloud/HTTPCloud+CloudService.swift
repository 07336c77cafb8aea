import Cloud
import Pairing
import Registry

extension HTTPCloud {
    public var labelBase: String { configuration.labelBase }

    /// Bindings reach an HTTP cloud through the outbox (local first, then the cloud).
    public var syncsBindings: Bool { true }

    public func bindDevice(_ command: BindCommand, timeout: Duration) async throws(NBGWError) -> CloudBindOutcome {
        let result = try await bind(command, timeout: timeout, syncNow: true)
        return CloudBindOutcome(
            outcome: result.outcome,
            syncState: result.sync.state == .notNeeded ? nil : result.sync.state.rawValue,
            syncMessage: result.sync.message
        )
    }

    public func unbindDevice(
        deviceID: String,
        source: BindingSource,
        operator: String?
    ) async throws(NBGWError)
        -> CloudUnbindOutcome
    {
        let result = try await unbind(deviceID: deviceID, source: source, operator: `operator`, syncNow: true)
        return CloudUnbindOutcome(
            binding: result.binding,
            syncState: result.sync.state == .notNeeded ? nil : result.sync.state.rawValue,
            syncMessage: result.sync.message
        )
    }
}
