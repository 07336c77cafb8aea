/// How a Kii emulator behaves: where it listens, which app it serves, who the gateway's owner
/// user is (and its token), which other users exist, and the faults it starts with.
public struct KiiEmulatorConfiguration: Sendable {
    /// Listen address. Why loopback by default: the emulator speaks plain HTTP.
    public var host: String
    /// 0 picks a free port (tests); ``RunningKiiEmulator/port`` tells which.
    public var port: Int
    /// Its own SQLite file (created if missing).
    public var databasePath: String
    /// The one app it serves (`{appID}` in every path).
    public var appID: String
    /// The owner user's id (`USER:<id>` in nbgw's settings) and its access token. Admin requests
    /// (`/admin/…`) carry this token too.
    public var ownerUserID: String
    public var ownerToken: String
    /// Login names of users created at start (idempotent), as the accounts nbgw binds to.
    public var users: [String]
    public var faults: KiiEmulatorFaults
    /// The app setting `requirePasswordForThingOwnership`: an owner is added only with the thing's
    /// password (`thingPassword` in the request). A wrong password is refused either way.
    public var requireThingPassword: Bool

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        databasePath: String,
        appID: String,
        ownerUserID: String,
        ownerToken: String,
        users: [String] = [],
        faults: KiiEmulatorFaults = KiiEmulatorFaults(),
        requireThingPassword: Bool = false
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.appID = appID
        self.ownerUserID = ownerUserID
        self.ownerToken = ownerToken
        self.users = users
        self.faults = faults
        self.requireThingPassword = requireThingPassword
    }

    /// The owner user's login name in the emulator.
    public static let ownerLoginName = "nbgw-gateway-owner"
}
