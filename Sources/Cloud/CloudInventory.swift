/// What a cloud holds, as ``CloudService/inventory(of:)`` reports it for the sync check.
public struct CloudInventory: Sendable, Equatable {
    /// A module the cloud knows (asked about, or listed).
    public struct Module: Sendable, Equatable {
        public var deviceID: String
        public var imei: String
        /// The module's credential from the store, for a cloud that reads a thing with its token.
        public var credential: String?
        /// Registered by another gateway of a fleet: not this store's to hold, so not missing here.
        public var otherGateway: Bool

        public init(deviceID: String, imei: String, credential: String? = nil, otherGateway: Bool = false) {
            self.deviceID = deviceID
            self.imei = imei
            self.credential = credential
            self.otherGateway = otherGateway
        }
    }

    /// A binding the cloud holds.
    public struct Binding: Sendable, Equatable {
        public var deviceID: String
        public var account: String
        /// Nil for a cloud without homes (a Thing-IF thing has owners only).
        public var home: String?

        public init(deviceID: String, account: String, home: String?) {
            self.deviceID = deviceID
            self.account = account
            self.home = home
        }
    }

    public var modules: [Module]
    public var bindings: [Binding]
    /// True when the cloud listed everything it holds; false when it could only be asked about the
    /// modules the store knows (then "only in the cloud" cannot be told).
    public var isComplete: Bool

    public init(modules: [Module], bindings: [Binding], isComplete: Bool) {
        self.modules = modules
        self.bindings = bindings
        self.isComplete = isComplete
    }
}
