/// Running totals since the gateway was created: the same numbers the `nbgw_*_total` counters
/// export, readable without a metrics backend (tests, `/healthz`).
public struct GatewayCounters: Sendable, Hashable {
    /// Command lines written to modems (probe, bring-up, polls).
    public var atCommands = 0
    /// Failure final results received (`ERROR`, `+CME ERROR`, …).
    public var atErrors = 0
    /// Commands given up on without a final result (another command had to be written first:
    /// a timeout and the resynchronisation after it). The `AT`s that wake a port are not counted
    /// until the port has answered once, so a silent port adds none.
    public var atTimeouts = 0
    /// Cloud registrations that created a device.
    public var registrationsCreated = 0
    /// Cloud registrations of an IMEI already registered (same device id).
    public var registrationsExisting = 0
    /// Cloud registrations that failed.
    public var registrationsFailed = 0

    public init() {}
}
