/// One state change of one port, as ``Gateway/stateChanges()`` reports it (the same facts the
/// modem table and the log get).
public struct ModemStateChange: Sendable, Hashable {
    /// The device node.
    public var port: String
    /// The module's IMEI, once the probe has read it.
    public var imei: String?
    public var state: ModemState
    /// Why the module is in ``state`` (nil when the state says it all).
    public var reason: ModemReason?
    /// The cloud's device id, once registered.
    public var deviceID: String?
    /// Why the port is `failed` or `notModem` (or why it went `absent`).
    public var failure: ModemFailure?

    public init(
        port: String,
        imei: String? = nil,
        state: ModemState,
        reason: ModemReason? = nil,
        deviceID: String? = nil,
        failure: ModemFailure? = nil
    ) {
        self.port = port
        self.imei = imei
        self.state = state
        self.reason = reason
        self.deviceID = deviceID
        self.failure = failure
    }
}
