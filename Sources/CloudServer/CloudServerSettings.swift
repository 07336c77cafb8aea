import TuyaCloud

/// The API's parameters that both the emulator and `nbgw-cloud` take from their configuration.
public struct CloudServerSettings: Sendable {
    /// Access token lifetime (Tuya: 7200 s).
    public var tokenLifetime: Duration
    /// Pairing token lifetime (the seed's 10 minutes).
    public var pairingTokenLifetime: Duration
    /// How far a request's `t` may be from the cloud's clock before it answers 1013. Tuya does not
    /// publish its window; 5 minutes is ours.
    public var allowedClockSkew: Duration
    /// The prefix of the labels the cloud issues and recognises, ending in `/`.
    public var labelBase: String
    /// The `region` of pairing tokens.
    public var region: String
    /// Event polls one node lets wait at once; more are answered at once (empty), so that
    /// consumers cannot hold every connection. Why 64: a fleet has a handful of consumers (a
    /// back office, a dashboard, an audit export); 64 is far over that and far under a node's
    /// connection cap.
    public var maximumEventWaiters: Int = 64
    /// The longest an event poll of this node waits, in seconds, whatever `wait` asks (up to
    /// ``CloudServerHandler/maximumEventWait``); the contract run sets 1 so that generated polls
    /// do not each wait 25 s.
    public var eventWaitLimit: Int = CloudServerHandler.maximumEventWait

    public init(
        tokenLifetime: Duration = .seconds(7200),
        pairingTokenLifetime: Duration = .seconds(600),
        allowedClockSkew: Duration = .seconds(300),
        labelBase: String = CloudConfiguration.defaultLabelBase,
        region: String = "EU"
    ) {
        self.tokenLifetime = tokenLifetime
        self.pairingTokenLifetime = pairingTokenLifetime
        self.allowedClockSkew = allowedClockSkew
        self.labelBase = labelBase.hasSuffix("/") ? labelBase : labelBase + "/"
        self.region = region
    }
}
