/// One committed binding change for the cloud to apply (the work of a `bind` or `unbind` outbox
/// row).
public struct CloudBindingChange: Sendable, Equatable {
    public enum Action: String, Sendable, Equatable {
        case bind
        case unbind
    }

    public var action: Action
    public var deviceID: String
    /// For a bind: the account (the cloud's user) and home the device is bound to. For an unbind:
    /// what it was bound to, when known.
    public var account: String?
    public var home: String?
    /// The module's credential from its registration (``CloudRegisteredModule/credential``), for
    /// a cloud that acts on a thing with the thing's own token. Never logged.
    public var moduleCredential: String?
    /// The module's own secret, its password at a cloud that authenticates things by password
    /// (``CloudService/wantsModuleSecret``), for a cloud that asks for it to change a thing's
    /// owners. Nil for every other cloud. Never logged.
    public var moduleSecret: String?

    public init(
        action: Action,
        deviceID: String,
        account: String?,
        home: String?,
        moduleCredential: String? = nil,
        moduleSecret: String? = nil
    ) {
        self.action = action
        self.deviceID = deviceID
        self.account = account
        self.home = home
        self.moduleCredential = moduleCredential
        self.moduleSecret = moduleSecret
    }
}

extension CloudBindingChange: CustomStringConvertible {
    public var description: String {
        "\(action.rawValue) \(deviceID) \(account ?? "-")/\(home ?? "-")"
    }
}
