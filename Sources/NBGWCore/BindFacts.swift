import Foundation

/// What the store knows about one bind attempt: the inputs of ``BindingRules/evaluate(_:now:)``.
///
/// Single binds (CLI, HTTP, daemon) and CSV batches gather these facts differently (one
/// transaction per bind vs. cached lookups and prepared statements per row), then apply the
/// same rules through the same function, so their error codes and messages cannot drift apart.
public struct BindFacts: Sendable {
    public struct AccountFacts: Sendable {
        public var id: Int64
        public var isOwner: Bool
        public init(id: Int64, isOwner: Bool) {
            self.id = id
            self.isOwner = isOwner
        }
    }

    public struct HomeFacts: Sendable {
        public var id: Int64
        public var ownerAccountID: Int64
        /// Empty: any product.
        public var allowedProducts: [String]
        public init(id: Int64, ownerAccountID: Int64, allowedProducts: [String]) {
            self.id = id
            self.ownerAccountID = ownerAccountID
            self.allowedProducts = allowedProducts
        }
    }

    public struct DeviceFacts: Sendable {
        public var imei: String
        public var productID: String?
        public init(imei: String, productID: String?) {
            self.imei = imei
            self.productID = productID
        }
    }

    public struct ExistingBinding: Sendable {
        public var accountID: Int64
        public var homeID: Int64
        public var homeName: String
        public init(accountID: Int64, homeID: Int64, homeName: String) {
            self.accountID = accountID
            self.homeID = homeID
            self.homeName = homeName
        }
    }

    public enum TokenFacts: Sendable {
        /// No token given: the bind is made on its caller's authority (an API key, the local
        /// operator, a CSV batch job) and stores no token.
        case notGiven
        /// A token was given but the store has no such token.
        case unknown
        case found(homeID: Int64, expiresAtMillis: Int64, used: Bool)
    }

    public var deviceID: String
    public var accountName: String
    public var homeName: String
    public var account: AccountFacts?
    public var home: HomeFacts?
    public var device: DeviceFacts?
    public var existing: ExistingBinding?
    public var token: TokenFacts

    public init(
        deviceID: String,
        accountName: String,
        homeName: String,
        account: AccountFacts?,
        home: HomeFacts?,
        device: DeviceFacts?,
        existing: ExistingBinding?,
        token: TokenFacts
    ) {
        self.deviceID = deviceID
        self.accountName = accountName
        self.homeName = homeName
        self.account = account
        self.home = home
        self.device = device
        self.existing = existing
        self.token = token
    }
}
