import Foundation

/// A module as the gateway knows it right now (its supervisor's view, not the store's), for the
/// daemon's control socket (`nbgw modems --watch`, `nbgw modem …`).
public struct ModemStatus: Sendable, Hashable, Codable {
    /// The device node.
    public var port: String
    /// Once the probe has read it.
    public var imei: String?
    public var state: ModemState
    /// When the supervisor entered ``state`` (nil for a port whose supervisor ended).
    public var stateSince: Date?
    public var reason: ModemReason?
    /// The cloud's device id, once registered.
    public var deviceID: String?
    /// Whether a supervisor runs for the port (false: `not_modem` or `absent`).
    public var supervised: Bool

    public init(
        port: String,
        imei: String?,
        state: ModemState,
        stateSince: Date?,
        reason: ModemReason?,
        deviceID: String?,
        supervised: Bool
    ) {
        self.port = port
        self.imei = imei
        self.state = state
        self.stateSince = stateSince
        self.reason = reason
        self.deviceID = deviceID
        self.supervised = supervised
    }

    enum CodingKeys: String, CodingKey {
        case port, imei, state, stateSince, reason, supervised
        case deviceID = "deviceId"
    }
}
