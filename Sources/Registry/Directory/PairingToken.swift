import Foundation

/// A pairing token for a home: valid for `BindingRules.pairingTokenLifetime`, dead once a device binds with it.
public struct PairingToken: Sendable, Equatable, Codable {
    public var token: String
    public var home: String
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    public var usedByDevice: String?
}
