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
