import DeviceIdentity
import Pairing

/// Everything the store needs to bind one device. Parsing and label resolution happen before.
public struct BindCommand: Sendable, Equatable {
    public var deviceID: DeviceID
    public var account: String
    public var home: String
    /// A pairing token from `token create`; when nil, one is issued and used in the same transaction.
    public var token: String?
    public var source: BindingSource
    public var `operator`: String?

    public init(
        deviceID: DeviceID,
        account: String,
        home: String,
        token: String? = nil,
        source: BindingSource,
        operator: String? = nil
    ) {
        self.deviceID = deviceID
        self.account = account
        self.home = home
        self.token = token
        self.source = source
        self.operator = `operator`
    }
}
