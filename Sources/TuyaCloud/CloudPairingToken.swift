import Foundation

/// A pairing token the cloud issued for a home (§1.3): valid 10 minutes, dies with the bind that
/// uses it. A secret for its lifetime: never log it.
public struct CloudPairingToken: Sendable, Equatable, CustomStringConvertible {
    public var token: String
    public var home: String
    public var account: String
    public var expiresAt: Date

    public init(token: String, home: String, account: String, expiresAt: Date) {
        self.token = token
        self.home = home
        self.account = account
        self.expiresAt = expiresAt
    }

    public var description: String {
        "CloudPairingToken(home: \(home), account: \(account), expiresAt: \(expiresAt), token: <redacted>)"
    }
}
